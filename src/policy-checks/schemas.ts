import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Open, Resource, StringOrNull, Timestamp, ToOne } from '../jsonapi/schemas.ts';

const CHECK_STATUSES = ['pending', 'queued', 'passed', 'soft_failed', 'hard_failed', 'overridden', 'errored', 'canceled', 'unreachable'];

export const PolicyCheckParams = Type.Object({ policy_check_id: Type.String() });
export const ListPolicyChecksQuery = Type.Object({ ...PageParams, include: Type.Optional(Type.String({ description: 'Comma-separated: run' })) });

const Count = Type.Integer({ minimum: 0 });

export const PolicyCheckResource = Resource('PolicyCheck', 'policy-checks', {
  attributes: {
    status: Type.String(),
    scope: Type.String(),
    'status-timestamps': Open(Object.fromEntries(CHECK_STATUSES.map((st) => [`${st.replace('_', '-')}-at`, Type.Optional(Timestamp)]))),
    result: Type.Union([
      Open({
        result: Type.Boolean(),
        passed: Count,
        'total-failed': Count,
        'hard-failed': Count,
        'soft-failed': Count,
        'advisory-failed': Count,
        duration: Count,
        sentinel: Open({
          'schema-version': Type.String(),
          // By `<set name>/<policy name>`.
          data: Type.Record(
            Type.String(),
            Open({ 'policy-set-id': Type.String(), 'enforcement-level': Type.String(), result: Type.Boolean(), error: StringOrNull() }),
          ),
        }),
      }),
      Type.Null(),
    ]),
    actions: Open({ 'is-overridable': Type.Boolean() }),
    permissions: Open({ 'can-override': Type.Boolean() }),
  },
  relationships: { run: ToOne('runs') },
  links: { output: Type.String() },
});
export const PolicyCheckDocument = Document(PolicyCheckResource, 'The policy check');
export const PolicyCheckListDocument = ListDocument(PolicyCheckResource, "The run's policy checks", { included: Type.Unknown() });
