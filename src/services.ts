// Every domain's service, built once and wired together. The order is the dependency order: a
// service is built after everything it uses. Domains that act when another domain's thing is
// created (the owners team and the default project of a new organization) register with it
// while being built, so the registration order is the order the hooks run in.
import type { Keyring } from './crypto/keyring.ts';
import type { Database } from './db/index.ts';
import { createAgentPoolsService } from './agent-pools/service.ts';
import { createAgentsService } from './agents/service.ts';
import { createBlobStore } from './blobs/store.ts';
import { createOrganizationLookup } from './organizations/lookup.ts';
import { createOrganizationsService } from './organizations/service.ts';
import { createPolicyChecksService } from './policy-checks/service.ts';
import { createPolicySetParametersService } from './policy-set-parameters/service.ts';
import { createPolicySetsService } from './policy-sets/service.ts';
import { createPoliciesService } from './policies/service.ts';
import { createPolicySetVersionsService } from './policy-set-versions/service.ts';
import { createProjectAccess } from './projects/access.ts';
import { createProjectsService } from './projects/service.ts';
import { createProjectGrantLoader, createTeamGrantsLoader, createTeamProjectsService } from './team-projects/service.ts';
import { createTagsService } from './tags/service.ts';
import { createOrganizationTagsService } from './organization-tags/service.ts';
import { createTeamsService } from './teams/service.ts';
import { createOrganizationMembershipsService } from './organization-memberships/service.ts';
import { createConfigurationVersionsService } from './configuration-versions/service.ts';
import { createRunsService } from './runs/service.ts';
import { createRunTriggersService } from './run-triggers/service.ts';
import { createPlanExportsService } from './plan-exports/service.ts';
import { createSshKeysService } from './ssh-keys/service.ts';
import { createAutoDestroyService } from './auto-destroy/service.ts';
import { createNotificationConfigurationsService } from './notification-configurations/service.ts';
import { createJobSignal, createJobsService } from './jobs/service.ts';
import { createTeamWorkspacesService, createWorkspaceGiftsLoader, createWorkspaceGrantLoader } from './team-workspaces/service.ts';
import { createTokensService } from './tokens/service.ts';
import { createUsersService } from './users/service.ts';
import { createSessionsService } from './sessions/service.ts';
import { createTerraformLoginService } from './terraform-login/service.ts';
import { createOidcService } from './oidc/service.ts';
import { createWorkspacesService } from './workspaces/service.ts';
import { createWorkspaceViewsService } from './workspace-views/service.ts';
import { createWorkspaceLocksService } from './workspace-locks/service.ts';
import { createStateVersionsService } from './state-versions/service.ts';
import { createSafeDeleteService } from './safe-delete/service.ts';
import { createVariableSetsService } from './variable-sets/service.ts';
import { createVariablesService } from './variables/service.ts';

export interface ServiceOptions {
  /** Needed only to read or write sensitive values (`serve`, `rotate-key`); loaded once at start-up. */
  keyring?: Keyring;
  /** HANGAR_BLOB_DIR: where blobs are kept; null or absent = the database. */
  blobDir?: string | null;
  /** The bound of one policy's evaluation in a policy check (HANGAR_POLICY_TIMEOUT); default 10 s. */
  policyTimeoutMs?: number;
  /** The heap bound of the sandbox process a policy check evaluates in, MiB (HANGAR_POLICY_MEMORY); default 512. */
  policyMemoryMb?: number;
}

export function createServices(database: Database, options: ServiceOptions = {}) {
  const organizationLookup = createOrganizationLookup({ database });
  // Every byte Hangar keeps (state, archives, plan files, logs), sealed alike, in one place.
  const blobs = createBlobStore({ database, keyring: options.keyring ?? null, blobDir: options.blobDir ?? null });
  const projectAccess = createProjectAccess({ database, organizationLookup, grants: createProjectGrantLoader(database) });

  const users = createUsersService({ database });
  const organizations = createOrganizationsService({ database, organizationLookup, projectAccess, users });
  const tags = createTagsService({ database, projectAccess });
  const workspaces = createWorkspacesService({ database, organizationLookup, projectAccess, tags, workspaceGrants: createWorkspaceGrantLoader(database) });
  // Early, so that runs (and anything else that needs a workspace's variables) can be given them.
  const variableSets = createVariableSetsService({ database, organizationLookup, projectAccess, workspaces });
  const variables = createVariablesService({ database, workspaces, variableSets, keyring: options.keyring ?? null });
  // Early too: a run's job takes its workspace's SSH key (runner/local.ts).
  const sshKeys = createSshKeysService({ database, organizationLookup, workspaces, keyring: options.keyring ?? null });
  const organizationTags = createOrganizationTagsService({ organizationLookup, tags, workspaces });
  const teams = createTeamsService({
    database,
    organizationLookup,
    organizations,
    projectAccess,
    teamGrants: createTeamGrantsLoader(database),
    workspaceGifts: createWorkspaceGiftsLoader({ database, workspaces }),
    users,
  });
  const sessions = createSessionsService({ database, users });
  const organizationMemberships = createOrganizationMembershipsService({ database, organizationLookup, organizations, teams, users });
  const teamWorkspaces = createTeamWorkspacesService({ database, workspaces, teams });
  const workspaceLocks = createWorkspaceLocksService({ database, workspaces, teams });
  const stateVersions = createStateVersionsService({ database, organizationLookup, workspaces, workspaceLocks, keyring: options.keyring ?? null, blobs });
  const safeDelete = createSafeDeleteService({ workspaces, workspaceLocks, stateVersions });
  const configurationVersions = createConfigurationVersionsService({ database, workspaces, keyring: options.keyring ?? null, blobs });
  const jobs = createJobsService({ database, keyring: options.keyring ?? null, blobs });
  // Wakes this process's runners when a job is queued here (runner/workers.ts).
  const jobSignal = createJobSignal();
  // Before runs: a run that applies asks which workspaces its workspace triggers, and queues their runs.
  const runTriggers = createRunTriggersService({ database, workspaces });
  const runs = createRunsService({ database, workspaces, workspaceLocks, configurationVersions, jobs, signal: jobSignal, runTriggers });
  // The scheduler's auto-destroy pass (runner/workers.ts): destroy runs for idle workspaces.
  const autoDestroy = createAutoDestroyService({ database, runs });
  const teamProjects = createTeamProjectsService({ database, projectAccess, teams });
  const projects = createProjectsService({ database, organizationLookup, projectAccess, organizations, workspaces, teamProjects, tags });
  const tokens = createTokensService({ database, users, organizationLookup, teams });
  const terraformLogin = createTerraformLoginService({ database, tokens });
  const oidc = createOidcService({ database, users, sessions });
  const policies = createPoliciesService({ database, organizationLookup });
  const policySets = createPolicySetsService({ database, organizationLookup, projectAccess, workspaces, policies });
  const policySetVersions = createPolicySetVersionsService({ database, policySets, keyring: options.keyring ?? null, blobs });
  const policySetParameters = createPolicySetParametersService({ database, policySets, keyring: options.keyring ?? null });
  // Registers itself with runs: plans are checked against the policy sets that apply.
  const policyChecks = createPolicyChecksService({
    database,
    runs,
    workspaces,
    jobs,
    policies,
    policySets,
    policySetVersions,
    policySetParameters,
    blobs,
    timeoutMs: options.policyTimeoutMs ?? 10_000,
    memoryMb: options.policyMemoryMb ?? 512,
  });
  // Registers itself with runs: every status change writes its notifications to the outbox.
  const notificationConfigurations = createNotificationConfigurationsService({
    database,
    workspaces,
    runs,
    organizationLookup,
    organizationMemberships,
    users,
    teams,
    keyring: options.keyring ?? null,
  });
  // Sentinel mocks of a finished plan, with the run as its policy checks see it.
  const planExports = createPlanExportsService({ database, runs, jobs, workspaces });
  // A workspace as the API shows it, joined above the domains that know its parts.
  const workspaceViews = createWorkspaceViewsService({ database });
  const agentPools = createAgentPoolsService({ database, organizationLookup, tokens, workspaces });
  const agents = createAgentsService({ database, pools: agentPools });
  // Organizations and workspaces name agent pools for execution; the pools domain tells them
  // apart, and which workspaces each may serve.
  organizations.useAgentPoolCheck(agentPools.idsInOrganization);
  workspaces.useAgentPoolCheck(agentPools.usability);
  // A state upload URL finalizes only while the token that asked for it may still write the state.
  stateVersions.useTokenCallers(tokens.callerOfToken);
  return {
    blobs,
    users,
    sessions,
    organizations,
    teams,
    organizationMemberships,
    tags,
    organizationTags,
    workspaces,
    workspaceViews,
    workspaceLocks,
    stateVersions,
    safeDelete,
    teamProjects,
    teamWorkspaces,
    configurationVersions,
    runs,
    runTriggers,
    notificationConfigurations,
    sshKeys,
    jobs,
    jobSignal,
    autoDestroy,
    projects,
    tokens,
    terraformLogin,
    oidc,
    policies,
    policySets,
    policySetVersions,
    policySetParameters,
    policyChecks,
    planExports,
    agentPools,
    agents,
    variableSets,
    variables,
  };
}

export type Services = ReturnType<typeof createServices>;
