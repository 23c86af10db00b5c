import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import {
  Document,
  Flags,
  Linkage,
  IntegerOrNull,
  ListDocument,
  Open,
  Resource,
  StringOrNull,
  Timestamp,
  ToMany,
  ToOne,
  ToOneOrNone,
} from '../jsonapi/schemas.ts';
import { RUN_STATUSES } from './statuses.ts';
import { SortParam } from '../jsonapi/query.ts';
import { WorkspaceResource } from '../workspaces/schemas.ts';

export const RunParams = Type.Object({ run_id: Type.String() });
export const PlanParams = Type.Object({ plan_id: Type.String() });
export const ApplyParams = Type.Object({ apply_id: Type.String() });
export const RunEventParams = Type.Object({ run_event_id: Type.String() });
export const OrganizationRunsParams = Type.Object({ organization_name: Type.String() });
export const CommentParams = Type.Object({ comment_id: Type.String() });
export const RunEventsQuery = Type.Object({ include: Type.Optional(Type.String({ description: 'Comma-separated: actor, comment' })) });
export const LogParams = Type.Object({ object: Type.String({ maxLength: 200 }) });

const INCLUDES = 'Comma-separated: plan, apply, workspace, created_by, configuration_version';
export const ShowRunQuery = Type.Object({ include: Type.Optional(Type.String({ description: INCLUDES })) });
export const ListRunsQuery = Type.Object({
  ...PageParams,
  include: Type.Optional(Type.String({ description: INCLUDES })),
  'filter[status]': Type.Optional(Type.String({ description: 'Comma-separated run statuses' })),
  'filter[operation]': Type.Optional(Type.String()),
  'filter[source]': Type.Optional(Type.String()),
  'filter[status_group]': Type.Optional(Type.String()),
  'search[basic]': Type.Optional(Type.String()),
  'search[user]': Type.Optional(Type.String()),
  'search[commit]': Type.Optional(Type.String()),
});
export const AdminRunsQuery = Type.Object({
  ...PageParams,
  include: Type.Optional(Type.String({ description: 'Comma-separated: workspace, workspace.organization' })),
  'filter[status]': Type.Optional(Type.String()),
  'filter[from]': Type.Optional(Type.String({ maxLength: 40, description: 'created at or after (ISO 8601)' })),
  'filter[to]': Type.Optional(Type.String({ maxLength: 40, description: 'created at or before (ISO 8601)' })),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});
export const QueueQuery = Type.Object({ ...PageParams });
export const LogQuery = Type.Object({
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,12}$' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })),
});

const Ref = (type: string) => Type.Object({ data: Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 64 }) }) });
const Address = Type.String({ minLength: 1, maxLength: 1000 });

export const CreateRunBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('runs'),
    attributes: Type.Optional(
      Type.Object({
        message: Type.Optional(Type.String({ maxLength: 1000 })),
        'is-destroy': Type.Optional(Type.Boolean()),
        refresh: Type.Optional(Type.Boolean()),
        'refresh-only': Type.Optional(Type.Boolean()),
        'plan-only': Type.Optional(Type.Boolean()),
        'auto-apply': Type.Optional(Type.Boolean()),
        'allow-empty-apply': Type.Optional(Type.Boolean()),
        'save-plan': Type.Optional(Type.Boolean()),
        'target-addrs': Type.Optional(Type.Array(Address, { maxItems: 1000 })),
        'replace-addrs': Type.Optional(Type.Array(Address, { maxItems: 1000 })),
        'terraform-version': Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z.+-]+$' })),
        variables: Type.Optional(
          Type.Array(
            Type.Object({ key: Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z_][A-Za-z0-9_-]*$' }), value: Type.String({ maxLength: 65536 }) }),
            { maxItems: 500 },
          ),
        ),
      }),
    ),
    relationships: Type.Object({
      workspace: Ref('workspaces'),
      // go-tfe sends `{"data": null}` for "the latest uploaded configuration version".
      'configuration-version': Type.Optional(
        Type.Object({
          data: Type.Union([Type.Null(), Type.Object({ type: Type.Literal('configuration-versions'), id: Type.String({ minLength: 1, maxLength: 64 }) })]),
        }),
      ),
    }),
  }),
});

const Status = Type.Unsafe<string>(Type.Enum([...RUN_STATUSES]));
const Phase = (name: string, type: string) =>
  Resource(name, type, {
    attributes: {
      'has-changes': Type.Boolean(),
      'log-read-url': Type.String(),
      'resource-additions': IntegerOrNull(),
      'resource-changes': IntegerOrNull(),
      'resource-destructions': IntegerOrNull(),
      'resource-imports': IntegerOrNull(),
      status: Type.Unsafe<string>(Type.Enum(['pending', 'queued', 'running', 'finished', 'errored', 'canceled', 'unreachable'])),
      'status-timestamps': Open(
        Object.fromEntries(
          ['pending', 'queued', 'started', 'finished', 'errored', 'canceled', 'unreachable'].map((st) => [`${st}-at`, Type.Optional(Timestamp)]),
        ),
      ),
      'execution-details': Open({ mode: Type.String() }),
    },
    relationships: { run: ToOne('runs') },
    links: { 'json-output': Type.Optional(Type.String({ description: 'plans only' })) },
  });

export const PlanResource = Phase('Plan', 'plans');
export const ApplyResource = Phase('Apply', 'applies');

export const RunResource = Resource('Run', 'runs', {
  description: "A run: a plan, then (once confirmed, or with auto-apply) an apply, executed by Hangar's runner.",
  attributes: {
    actions: Flags(['is-cancelable', 'is-confirmable', 'is-discardable', 'is-force-cancelable']),
    'allow-empty-apply': Type.Boolean(),
    'auto-apply': Type.Boolean(),
    'canceled-at': StringOrNull({ format: 'date-time' }),
    'created-at': Timestamp,
    'force-cancel-available-at': StringOrNull({ format: 'date-time' }),
    'has-changes': Type.Boolean(),
    'is-destroy': Type.Boolean(),
    message: Type.String(),
    permissions: Flags(['can-apply', 'can-cancel', 'can-comment', 'can-discard', 'can-force-cancel', 'can-force-execute']),
    'plan-only': Type.Boolean(),
    'position-in-queue': Type.Integer(),
    refresh: Type.Boolean(),
    'refresh-only': Type.Boolean(),
    'replace-addrs': Type.Array(Type.String()),
    'save-plan': Type.Boolean(),
    source: Type.String(),
    status: Status,
    'status-timestamps': Open(Object.fromEntries([...RUN_STATUSES, 'plan_queueable'].map((st) => [`${st.replaceAll('_', '-')}-at`, Type.Optional(Timestamp)]))),
    'target-addrs': Type.Array(Type.String()),
    'terraform-version': Type.String(),
    'trigger-reason': Type.String(),
    variables: Type.Array(Open({ key: Type.String(), value: Type.String() })),
  },
  relationships: {
    workspace: ToOne('workspaces'),
    'configuration-version': ToOne('configuration-versions'),
    'created-by': Type.Union([ToOne('users'), ToOneOrNone('users')]),
    'confirmed-by': Type.Union([ToOne('users'), ToOneOrNone('users')]),
    plan: ToOne('plans'),
    apply: ToOne('applies'),
    'run-events': Open({ data: Type.Array(Type.Unknown(), { maxItems: 0 }), links: Open({ related: Type.String() }) }),
    comments: Open({ data: Type.Array(Linkage('comments')), links: Open({ related: Type.String() }) }),
    'policy-checks': Open({ data: Type.Array(Linkage('policy-checks')), links: Open({ related: Type.String() }) }),
    'task-stages': ToMany('task-stages'),
  },
});

export const RunEventResource = Resource('RunEvent', 'run-events', {
  attributes: { action: Type.String(), 'created-at': Timestamp, description: StringOrNull() },
  relationships: { actor: Type.Union([ToOne('users'), ToOneOrNone('users')]), comment: Type.Union([ToOne('comments'), ToOneOrNone('comments')]) },
});

export const RunDocument = Document(RunResource, 'The run', Type.Unknown());
export const RunListDocument = ListDocument(RunResource, 'A page of runs, newest first', { included: Type.Unknown() });
export const PlanDocument = Document(PlanResource, 'The plan');
export const ApplyDocument = Document(ApplyResource, 'The apply');
export const RunEventDocument = Document(RunEventResource, 'The run event', Type.Unknown());
export const RunEventListDocument = ListDocument(RunEventResource, "The run's events, oldest first", { included: Type.Unknown() });
export const Bytes = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The bytes' });

export const CreateCommentBody = Type.Object({
  data: Type.Object({ type: Type.Literal('comments'), attributes: Type.Object({ body: Type.String({ minLength: 1, maxLength: 10000 }) }) }),
});
export const CommentResource = Resource('Comment', 'comments', {
  attributes: { body: Type.String(), 'created-at': Timestamp },
  relationships: { run: ToOne('runs'), 'created-by': Type.Union([ToOne('users'), ToOneOrNone('users')]) },
});
export const CommentDocument = Document(CommentResource, 'The comment');
export const CommentListDocument = ListDocument(CommentResource, "The run's comments, oldest first");

export const AdminWorkspacesQuery = Type.Object({
  ...PageParams,
  q: Type.Optional(Type.String({ maxLength: 200, description: 'part of the name (any case), or the id' })),
  include: Type.Optional(Type.String({ description: 'Comma-separated: organization, current_run' })),
  'filter[current_run][status]': Type.Optional(Type.String({ description: 'Comma-separated run statuses of the current run' })),
  sort: SortParam(['name', 'current-run.created-at']),
});
export const AdminWorkspaceParams = Type.Object({ workspace_id: Type.String() });
export const AdminWorkspaceDocument = Document(WorkspaceResource, 'The workspace', Type.Unknown());
export const AdminWorkspaceListDocument = ListDocument(WorkspaceResource, "A page of every organization's workspaces", { included: Type.Unknown() });
