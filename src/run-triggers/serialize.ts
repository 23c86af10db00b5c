import { toOne } from '../jsonapi/relationships.ts';
import type { RunTriggerView } from './service.ts';

export function runTriggerResource(v: RunTriggerView) {
  const t = v.trigger;
  return {
    id: t.id,
    type: 'run-triggers',
    attributes: {
      'workspace-name': v.workspaceName,
      'sourceable-name': v.sourceableName,
      'created-at': t.createdAt,
    },
    relationships: {
      workspace: toOne('workspaces', t.workspaceId),
      sourceable: toOne('workspaces', t.sourceableId),
    },
    links: { self: `/api/v2/run-triggers/${t.id}` },
  };
}
