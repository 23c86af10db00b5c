import { toOne } from '../jsonapi/relationships.ts';
import { tagRelationships } from '../tags/serialize.ts';
import type { ProjectView } from './service.ts';

/** Create, show, update and list all answer with this one shape. */
export function projectResource({ project, organizationName, permissions, workspaceCount, teamCount, execution, effectiveTags }: ProjectView) {
  const self = `/api/v2/projects/${project.id}`;
  return {
    id: project.id,
    type: 'projects',
    attributes: {
      name: project.name,
      description: project.description,
      'created-at': project.createdAt,
      'auto-destroy-activity-duration': project.autoDestroyActivityDuration,
      'default-execution-mode': execution.defaultExecutionMode,
      // false: inherited from the organization (projects cannot set their own yet).
      'setting-overwrites': { 'default-execution-mode': false, 'default-agent-pool': false },
      'workspace-count': workspaceCount,
      'team-count': teamCount,
      permissions,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      'default-agent-pool': { data: execution.defaultAgentPoolId ? { id: execution.defaultAgentPoolId, type: 'agent-pools' } : null },
      ...tagRelationships(self, effectiveTags),
    },
    links: { self },
  };
}
