import { toOne } from '../jsonapi/relationships.ts';
import type { RunView } from './service.ts';

/** A `runs` resource. Hangar plans and applies nothing, so a run only ever waits, or ended unrun. */
export function runResource({ run, mayAct }: RunView) {
  const pending = run.status === 'pending';
  const timestamps: Record<string, string> = {};
  if (run.discardedAt) timestamps['discarded-at'] = run.discardedAt;
  if (run.canceledAt) timestamps['canceled-at'] = run.canceledAt;
  return {
    id: run.id,
    type: 'runs',
    attributes: {
      actions: { 'is-cancelable': pending, 'is-confirmable': false, 'is-discardable': pending, 'is-force-cancelable': false },
      'allow-empty-apply': false,
      'auto-apply': run.autoApply,
      'created-at': run.createdAt,
      'has-changes': false,
      'is-destroy': run.isDestroy,
      message: run.message,
      permissions: {
        'can-apply': false,
        'can-cancel': mayAct && pending,
        'can-discard': mayAct && pending,
        'can-force-cancel': false,
        'can-force-execute': false,
      },
      'plan-only': run.planOnly,
      'position-in-queue': 0,
      refresh: run.refresh,
      'refresh-only': run.refreshOnly,
      source: run.source,
      status: run.status,
      'status-timestamps': timestamps,
      'terraform-version': null,
      variables: [],
    },
    relationships: {
      workspace: toOne('workspaces', run.workspaceId),
      'configuration-version': toOne('configuration-versions', run.configurationVersionId),
      'created-by': run.createdByUserId ? toOne('users', run.createdByUserId) : { data: null },
    },
    links: { self: `/api/v2/runs/${run.id}` },
  };
}
