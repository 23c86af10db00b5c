// What the pages are given: the same services the API routes call (never a store), and the
// shared pieces of the UI. Add the services a new page needs to WebServices.
import type { Admission } from '../auth/plugin.ts';
import type { JobsService } from '../jobs/service.ts';
import type { OrganizationsService } from '../organizations/service.ts';
import type { ProjectsService } from '../projects/service.ts';
import type { RunsService } from '../runs/service.ts';
import type { SessionsService } from '../sessions/service.ts';
import type { OidcService } from '../oidc/service.ts';
import type { TerraformLoginService } from '../terraform-login/service.ts';
import type { StateVersionsService } from '../state-versions/service.ts';
import type { TeamProjectsService } from '../team-projects/service.ts';
import type { TeamsService } from '../teams/service.ts';
import type { UsersService } from '../users/service.ts';
import type { VariablesService } from '../variables/service.ts';
import type { WorkspaceLocksService } from '../workspace-locks/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import type { WorkspaceViewsService } from '../workspace-views/service.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AgentPoolsService } from '../agent-pools/service.ts';
import type { AgentsService } from '../agents/service.ts';
import type { OrganizationMembershipsService } from '../organization-memberships/service.ts';
import type { PoliciesService } from '../policies/service.ts';
import type { PolicySetParametersService } from '../policy-set-parameters/service.ts';
import type { PolicySetsService } from '../policy-sets/service.ts';
import type { TokensService } from '../tokens/service.ts';
import type { RunTriggersService } from '../run-triggers/service.ts';
import type { PlanExportsService } from '../plan-exports/service.ts';

export interface WebServices {
  sessions: SessionsService;
  users: UsersService;
  teams: TeamsService;
  organizations: OrganizationsService;
  projects: ProjectsService;
  teamProjects: TeamProjectsService;
  workspaces: WorkspacesService;
  workspaceViews: WorkspaceViewsService;
  workspaceLocks: WorkspaceLocksService;
  variables: VariablesService;
  stateVersions: StateVersionsService;
  runs: RunsService;
  runTriggers: RunTriggersService;
  planExports: PlanExportsService;
  jobs: JobsService;
  organizationMemberships: OrganizationMembershipsService;
  policySets: PolicySetsService;
  policySetParameters: PolicySetParametersService;
  policies: PoliciesService;
  agentPools: AgentPoolsService;
  agents: AgentsService;
  tokens: TokensService;
  terraformLogin: TerraformLoginService;
  oidc: OidcService;
}

export interface WebLimits {
  /** Charges a signed-in person's budget (as for their API calls), or refuses with 429. */
  admit: Admission | undefined;
  /** Charges the client's address: pages shown to anyone (the sign-in page). */
  anonymous: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}
