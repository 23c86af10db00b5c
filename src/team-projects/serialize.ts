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
      team: { data: { id: t.teamId, type: 'teams' }, links: { related: `/api/v2/teams/${t.teamId}` } },
      project: { data: { id: t.projectId, type: 'projects' }, links: { related: `/api/v2/projects/${t.projectId}` } },
    },
    links: { self: `/api/v2/team-projects/${t.id}` },
  };
}
