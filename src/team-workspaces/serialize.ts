import { toOne } from '../jsonapi/relationships.ts';
import type { TeamWorkspace } from './store.ts';

/** Every permission at its effective value, whatever the level (as TFE shows them). */
export function teamWorkspaceResource(t: TeamWorkspace) {
  return {
    id: t.id,
    type: 'team-workspaces',
    attributes: {
      access: t.access,
      runs: t.runs,
      variables: t.variables,
      'state-versions': t['state-versions'],
      'sentinel-mocks': t['sentinel-mocks'],
      'workspace-locking': t['workspace-locking'],
      'run-tasks': t['run-tasks'],
    },
    relationships: {
      team: toOne('teams', t.teamId),
      workspace: toOne('workspaces', t.workspaceId),
    },
    links: { self: `/api/v2/team-workspaces/${t.id}` },
  };
}
