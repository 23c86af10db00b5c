import { toOne } from '../jsonapi/relationships.ts';
import type { VariableSetView } from './service.ts';

const many = (type: string, ids: readonly string[]) => ({ data: ids.map((id) => ({ id, type })) });

export function variableSetResource({ set, organizationName, workspaceIds, projectIds, variableIds }: VariableSetView) {
  return {
    id: set.id,
    type: 'varsets',
    attributes: {
      name: set.name,
      description: set.description,
      global: set.global,
      priority: set.priority,
      'updated-at': set.updatedAt,
      'var-count': variableIds.length,
      'workspace-count': workspaceIds.length,
      'project-count': projectIds.length,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      parent: set.projectId ? toOne('projects', set.projectId) : toOne('organizations', organizationName),
      workspaces: many('workspaces', workspaceIds),
      projects: many('projects', projectIds),
      vars: many('vars', variableIds),
    },
    links: { self: `/api/v2/varsets/${set.id}` },
  };
}
