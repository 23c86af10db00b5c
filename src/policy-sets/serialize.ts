import { toOne } from '../jsonapi/relationships.ts';
import type { PolicySetView } from './service.ts';

const refs = (type: string, ids: readonly string[]) => ({ data: ids.map((id) => ({ id, type })) });

export function policySetResource({ set, projectIds, workspaceIds, excludedWorkspaceIds, organizationName }: PolicySetView) {
  const self = `/api/v2/policy-sets/${set.id}`;
  return {
    id: set.id,
    type: 'policy-sets',
    attributes: {
      name: set.name,
      description: set.description,
      kind: set.kind,
      global: set.global,
      overridable: set.overridable,
      'agent-enabled': set.agentEnabled,
      'policy-tool-version': set.policyToolVersion,
      'created-at': set.createdAt,
      'updated-at': set.updatedAt,
      // Hangar stores no policies and no VCS sources: sets hold parameters only.
      'policy-count': 0,
      versioned: false,
      'vcs-repo': null,
      'policies-path': null,
      'workspace-count': workspaceIds.length,
      'project-count': projectIds.length,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      projects: refs('projects', projectIds),
      workspaces: refs('workspaces', workspaceIds),
      'workspace-exclusions': refs('workspaces', excludedWorkspaceIds),
      policies: { data: [] },
    },
    links: { self },
  };
}
