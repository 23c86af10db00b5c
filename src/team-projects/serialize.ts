import { toOne } from '../jsonapi/relationships.ts';
import type { TeamProject } from './store.ts';

/** Both sub-objects always carry every permission at its effective value, whatever the level. */
export function teamProjectResource(t: TeamProject) {
  return {
    id: t.id,
    type: 'team-projects',
    attributes: {
      access: t.access,
      'project-access': { ...t.project },
      'workspace-access': { ...t.workspace },
    },
    relationships: {
      team: toOne('teams', t.teamId),
      project: toOne('projects', t.projectId),
    },
    links: { self: `/api/v2/team-projects/${t.id}` },
  };
}
