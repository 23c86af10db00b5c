import type { OrganizationView } from './service.ts';

export function organizationResource({ org, permissions, defaultProjectId }: OrganizationView) {
  const path = `/api/v2/organizations/${encodeURIComponent(org.name)}`;
  return {
    id: org.name,
    type: 'organizations',
    attributes: {
      name: org.name,
      email: org.email,
      'external-id': org.id,
      'created-at': org.createdAt,
      'default-execution-mode': 'remote',
      permissions,
    },
    relationships: {
      'default-project': { data: defaultProjectId ? { id: defaultProjectId, type: 'projects' } : null },
      'authentication-token': { links: { related: `${path}/authentication-token` } },
      'entitlement-set': { data: { id: org.id, type: 'entitlement-sets' }, links: { related: `${path}/entitlement-set` } },
    },
    links: { self: path },
  };
}

/** What this installation offers every organization: Hangar has no paid tiers. */
export function entitlementSetResource(view: OrganizationView) {
  return {
    id: view.org.id,
    type: 'entitlement-sets',
    attributes: {
      agents: true,
      'policy-enforcement': true,
      sentinel: true,
      teams: true,
      'state-storage': false,
      operations: false,
      'vcs-integrations': false,
      'private-module-registry': false,
      'cost-estimation': false,
      'run-tasks': false,
      'audit-logging': false,
      sso: false,
      'user-limit': null,
      'policy-set-limit': null,
      'policy-limit': null,
    },
    links: { self: `/api/v2/entitlement-sets/${view.org.id}` },
  };
}
