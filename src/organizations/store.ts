import type { Queryable } from '../db/index.ts';
import { bool, columns, typed } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { OrganizationsTable } from '../db/schema.ts';
import { containsInsensitive } from '../db/sql.ts';
import type { ExecutionMode } from '../values.ts';

export type CollaboratorAuthPolicy = 'password' | 'two_factor_mandatory';

/** What an owner may set on an organization besides its name and e-mail address, with TFE's defaults. */
export interface OrganizationSettings {
  /** Minutes. */
  sessionTimeout: number;
  sessionRemember: number;
  collaboratorAuthPolicy: CollaboratorAuthPolicy;
  costEstimationEnabled: boolean;
  sendPassingStatusesForUntriggeredSpeculativePlans: boolean;
  assessmentsEnforced: boolean;
  allowForceDeleteWorkspaces: boolean;
  aggregatedCommitStatusEnabled: boolean;
  speculativePlanManagementEnabled: boolean;
  ownersTeamSamlRoleId: string | null;
}

export const DEFAULT_SETTINGS: OrganizationSettings = {
  sessionTimeout: 20160,
  sessionRemember: 20160,
  collaboratorAuthPolicy: 'password',
  costEstimationEnabled: false,
  sendPassingStatusesForUntriggeredSpeculativePlans: false,
  assessmentsEnforced: false,
  allowForceDeleteWorkspaces: false,
  aggregatedCommitStatusEnabled: false,
  speculativePlanManagementEnabled: true,
  ownersTeamSamlRoleId: null,
};

export const SETTINGS = Object.keys(DEFAULT_SETTINGS) as Array<keyof OrganizationSettings>;

/** What a workspace that does not choose its own execution mode gets. */
export interface ExecutionDefaults {
  defaultExecutionMode: ExecutionMode;
  /** Set exactly when the default mode is `agent` (a pool in use cannot be deleted). */
  defaultAgentPoolId: string | null;
}

export interface Organization extends OrganizationSettings, ExecutionDefaults {
  id: string;
  name: string;
  email: string;
  serviceUserId: string;
  createdAt: string;
}

const ORGANIZATIONS = columns<OrganizationsTable, Organization>({
  id: 'id',
  name: 'name',
  email: 'email',
  serviceUserId: 'service_user_id',
  createdAt: 'created_at',
  sessionTimeout: 'session_timeout',
  sessionRemember: 'session_remember',
  collaboratorAuthPolicy: typed<CollaboratorAuthPolicy>()('collaborator_auth_policy'),
  costEstimationEnabled: bool('cost_estimation_enabled'),
  sendPassingStatusesForUntriggeredSpeculativePlans: bool('send_passing_statuses_for_untriggered_speculative_plans'),
  assessmentsEnforced: bool('assessments_enforced'),
  allowForceDeleteWorkspaces: bool('allow_force_delete_workspaces'),
  aggregatedCommitStatusEnabled: bool('aggregated_commit_status_enabled'),
  speculativePlanManagementEnabled: bool('speculative_plan_management_enabled'),
  ownersTeamSamlRoleId: 'owners_team_saml_role_id',
  defaultExecutionMode: typed<ExecutionMode>()('default_execution_mode'),
  defaultAgentPoolId: 'default_agent_pool_id',
});
/** The only columns an update may change; whatever else a caller's object holds is ignored. */
const changes = ORGANIZATIONS.patch('name', 'email', 'defaultExecutionMode', 'defaultAgentPoolId', ...SETTINGS);

export type OrganizationChanges = Partial<Pick<Organization, 'name' | 'email' | keyof OrganizationSettings | keyof ExecutionDefaults>>;

/** The list's filters: `search` matches the name or the e-mail address, the others one each (substrings, any case). */
export interface OrganizationSearch {
  search?: string;
  name?: string;
  email?: string;
}

export async function insertOrganization(q: Queryable, o: Organization): Promise<void> {
  await q.insertInto('organizations').values(ORGANIZATIONS.write(o)).execute();
}

export async function findOrganizationByName(q: Queryable, name: string): Promise<Organization | undefined> {
  const r = await q
    .selectFrom('organizations')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return r && ORGANIZATIONS.read(r);
}

export async function findOrganizationById(q: Queryable, id: string): Promise<Organization | undefined> {
  const r = await q.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
  return r && ORGANIZATIONS.read(r);
}

/**
 * One page of the organizations `visible` lets through, newest first, so that an organization
 * just created is on the first page however many the caller sees.
 */
export async function listOrganizations(q: Queryable, visible: RowFilter<'organizations'>, search: OrganizationSearch, page: Window) {
  let base = q.selectFrom('organizations');
  if (visible) base = base.where(visible);
  if (search.search) {
    const text = search.search;
    base = base.where((eb) => eb.or([containsInsensitive('name', text), containsInsensitive('email', text)]));
  }
  if (search.name) base = base.where(containsInsensitive('name', search.name));
  if (search.email) base = base.where(containsInsensitive('email', search.email));
  return listWithTotal(base, base.selectAll().orderBy('seq', 'desc'), page, ORGANIZATIONS.read);
}

export async function updateOrganization(q: Queryable, id: string, patch: OrganizationChanges): Promise<void> {
  const set = changes(patch);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('organizations').set(set).where('id', '=', id).execute();
}

export async function deleteOrganization(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('organizations').where('id', '=', id).execute();
}
