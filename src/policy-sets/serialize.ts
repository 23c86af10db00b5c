import { toOne } from '../jsonapi/relationships.ts';
import type { PolicySetView } from './service.ts';

const refs = (type: string, ids: readonly string[]) => ({ data: ids.map((id) => ({ id, type })) });

const version = (id: string | null) => ({ data: id === null ? null : { id, type: 'policy-set-versions' } });

export function policySetResource({ set, projectIds, workspaceIds, excludedWorkspaceIds, policyIds, versions, organizationName }: PolicySetView) {
  const versioned = versions.newest !== null;
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
      'policy-count': versioned ? versions.policyCount : policyIds.length,
      versioned,
      // Hangar keeps no VCS sources.
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
      policies: refs('policies', policyIds),
      'newest-version': version(versions.newest),
      'current-version': version(versions.current),
    },
    links: { self },
  };
}
