import { toOne } from '../jsonapi/relationships.ts';
import { tagRelationships } from '../tags/serialize.ts';
import type { ProjectView } from './service.ts';

/** Create, show, update and list all answer with this one shape. */
export function projectResource({ project, organizationName, permissions, workspaceCount, teamCount, effectiveTags }: ProjectView) {
  const self = `/api/v2/projects/${project.id}`;
  return {
    id: project.id,
    type: 'projects',
    attributes: {
      name: project.name,
      description: project.description,
      'created-at': project.createdAt,
      'auto-destroy-activity-duration': project.autoDestroyActivityDuration,
      'default-execution-mode': 'remote',
      'workspace-count': workspaceCount,
      'team-count': teamCount,
      permissions,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      'default-agent-pool': { data: null },
      ...tagRelationships(self, effectiveTags),
    },
    links: { self },
  };
}
