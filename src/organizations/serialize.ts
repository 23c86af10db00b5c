import type { OrganizationView } from './service.ts';
import type { Organization } from './store.ts';

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
      'default-execution-mode': org.defaultExecutionMode,
      ...settingsAttributes(org),
      permissions,
    },
    relationships: {
      'default-project': { data: defaultProjectId ? { id: defaultProjectId, type: 'projects' } : null },
      'default-agent-pool': { data: org.defaultAgentPoolId ? { id: org.defaultAgentPoolId, type: 'agent-pools' } : null },
      'authentication-token': { links: { related: `${path}/authentication-token` } },
      'entitlement-set': { data: { id: org.id, type: 'entitlement-sets' }, links: { related: `${path}/entitlement-set` } },
    },
    links: { self: path },
  };
}

/** The settings, and the fixed answers to what Hangar does not have (SAML, trials, unified accounts). */
function settingsAttributes(org: OrganizationView['org']) {
  return {
    'session-timeout': org.sessionTimeout,
    'session-remember': org.sessionRemember,
    'collaborator-auth-policy': org.collaboratorAuthPolicy,
    'cost-estimation-enabled': org.costEstimationEnabled,
    'send-passing-statuses-for-untriggered-speculative-plans': org.sendPassingStatusesForUntriggeredSpeculativePlans,
    'assessments-enforced': org.assessmentsEnforced,
    'allow-force-delete-workspaces': org.allowForceDeleteWorkspaces,
    'aggregated-commit-status-enabled': org.aggregatedCommitStatusEnabled,
    'speculative-plan-management-enabled': org.speculativePlanManagementEnabled,
    'owners-team-saml-role-id': org.ownersTeamSamlRoleId,
    'saml-enabled': false,
    // Hangar has no two-factor authentication: only an organization that does not require it conforms.
    'two-factor-conformant': org.collaboratorAuthPolicy === 'password',
    'is-unified': false,
    'trial-expires-at': null,
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
      'state-storage': true,
      operations: true,
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

/** Seconds as the shortest Go duration that says them ("2h", "90m", "45s"), as TFE writes its timeouts. */
export function goDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/**
 * An organization in TFE's admin API. The settings Hangar does not have are their fixed answers;
 * the timeouts are the installation's run limit (HANGAR_RUN_TIMEOUT), the same for every plan and apply.
 */
export function adminOrganizationResource(org: Organization, ownerIds: readonly string[], runTimeoutSeconds: number) {
  const timeout = goDuration(runTimeoutSeconds);
  return {
    id: org.name,
    type: 'organizations',
    attributes: {
      name: org.name,
      'external-id': org.id,
      'notification-email': org.email,
      'created-at': org.createdAt,
      'access-beta-tools': false,
      'global-module-sharing': false,
      'global-provider-sharing': false,
      'is-disabled': false,
      'sso-enabled': false,
      'terraform-worker-sudo-enabled': false,
      'terraform-build-worker-apply-timeout': timeout,
      'terraform-build-worker-plan-timeout': timeout,
      'apply-timeout': timeout,
      'plan-timeout': timeout,
      'workspace-limit': null,
    },
    relationships: { owners: { data: ownerIds.map((id) => ({ id, type: 'users' })) } },
    links: { self: `/api/v2/admin/organizations/${encodeURIComponent(org.name)}` },
  };
}
