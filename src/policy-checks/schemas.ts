import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Open, Resource, ToOne } from '../jsonapi/schemas.ts';

export const PolicyCheckParams = Type.Object({ policy_check_id: Type.String() });
export const ListPolicyChecksQuery = Type.Object({ ...PageParams, include: Type.Optional(Type.String({ description: 'Comma-separated: run' })) });

const Count = Type.Integer({ minimum: 0 });

export const PolicyCheckResource = Resource('PolicyCheck', 'policy-checks', {
  attributes: {
    status: Type.String(),
    scope: Type.String(),
    'status-timestamps': Open({}),
    result: Type.Union([
      Open({
        result: Type.Boolean(),
        passed: Count,
        'total-failed': Count,
        'hard-failed': Count,
        'soft-failed': Count,
        'advisory-failed': Count,
        duration: Count,
        sentinel: Open({}),
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
