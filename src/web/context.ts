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
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface WebServices {
  sessions: SessionsService;
  users: UsersService;
  teams: TeamsService;
  organizations: OrganizationsService;
  projects: ProjectsService;
  teamProjects: TeamProjectsService;
  workspaces: WorkspacesService;
  workspaceLocks: WorkspaceLocksService;
  variables: VariablesService;
  stateVersions: StateVersionsService;
  runs: RunsService;
  jobs: JobsService;
  terraformLogin: TerraformLoginService;
  oidc: OidcService;
}

export interface WebLimits {
  /** Charges a signed-in person's budget (as for their API calls), or refuses with 429. */
  admit: Admission | undefined;
  /** Charges the client's address: pages shown to anyone (the sign-in page). */
  anonymous: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}
