// Table types for Kysely. Timestamps are ISO-8601 text (`2026-11-22T10:04:05.123Z`): the same
// on both engines, and fixed-width so text order is time order.
import type { ColumnType, Generated } from 'kysely';

/** SQLite hands booleans back as 0/1, PostgreSQL as true/false; stores normalise with Boolean(). */
export type DbBool = ColumnType<boolean | 0 | 1, boolean, boolean>;

export interface UsersTable {
  id: string;
  username: string;
  email: string;
  is_site_admin: DbBool;
  is_service_account: DbBool;
  created_at: string;
  /** `scrypt$N$r$p$salt$hash` (users/passwords.ts); null: no password. */
  password_hash: string | null;
}

export interface OrganizationsTable {
  id: string; // external id, org-…; the API id is the name
  name: string;
  email: string;
  service_user_id: string;
  created_at: string;
  /** Minutes, 1 to 20160 (as is session_remember). */
  session_timeout: number;
  session_remember: number;
  collaborator_auth_policy: string;
  cost_estimation_enabled: DbBool;
  send_passing_statuses_for_untriggered_speculative_plans: DbBool;
  assessments_enforced: DbBool;
  allow_force_delete_workspaces: DbBool;
  aggregated_commit_status_enabled: DbBool;
  speculative_plan_management_enabled: DbBool;
  owners_team_saml_role_id: string | null;
  /** `remote`, `local` or `agent`: what a workspace that does not choose its own gets. */
  default_execution_mode: string;
  /** Set exactly when the default mode is `agent`. */
  default_agent_pool_id: string | null;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface TeamsTable {
  id: string;
  organization_id: string;
  name: string;
  visibility: string;
  is_owners: DbBool;
  /** JSON object of organization-access flags (grants.ts lists the keys). */
  organization_access: string;
  created_at: string;
  /** The identity provider's id for the team (stored and shown; Hangar has no SSO). */
  sso_team_id: string | null;
  allow_member_token_management: DbBool;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface TeamMembershipsTable {
  team_id: string;
  user_id: string;
  created_at: string;
}

/** `audit-trail`: an organization's second token, for reading its audit trail only. */
export type TokenKind = 'user' | 'organization' | 'audit-trail' | 'agent' | 'team';

export interface AuthTokensTable {
  id: string;
  kind: TokenKind;
  /** Hex SHA-256 of the secret; the secret itself is never stored. */
  digest: string;
  description: string | null;
  /** user tokens: the owner. */
  user_id: string | null;
  /** organization and agent tokens: the organization. */
  organization_id: string | null;
  /** agent tokens: the pool they belong to (deleting the pool deletes them). */
  agent_pool_id: string | null;
  /** team tokens: the team (deleting it deletes them). */
  team_id: string | null;
  created_by_user_id: string | null;
  created_at: string;
  last_used_at: string | null;
  expired_at: string | null;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface ProjectsTable {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  auto_destroy_activity_duration: string | null;
  is_default: DbBool;
  created_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

/** Each organization's number of projects, kept by triggers on `projects` (migration 0012). */
export interface OrganizationProjectCountsTable {
  organization_id: string;
  projects: number;
}

/**
 * Per organization, how many projects' lower-cased names contain each string of one or two
 * characters (`gram`), kept by triggers on `projects` (migration 0014).
 */
export interface ProjectNameGramsTable {
  organization_id: string;
  gram: string;
  projects: number;
}

export interface PolicySetsTable {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  kind: string;
  global: DbBool;
  overridable: DbBool;
  agent_enabled: DbBool;
  policy_tool_version: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkspacesTable {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  description: string | null;
  /** The workspace's own value; the effective one comes from the project while inheriting. */
  auto_destroy_activity_duration: string | null;
  inherits_project_auto_destroy: DbBool;
  created_at: string;
  updated_at: string;
  auto_apply: DbBool;
  auto_apply_run_trigger: DbBool;
  allow_destroy_plan: DbBool;
  assessments_enabled: DbBool;
  file_triggers_enabled: DbBool;
  global_remote_state: DbBool;
  queue_all_runs: DbBool;
  speculative_enabled: DbBool;
  structured_run_output_enabled: DbBool;
  /** A version, a version constraint, or `latest`. */
  terraform_version: string;
  working_directory: string;
  /** JSON arrays of strings. */
  trigger_prefixes: string;
  trigger_patterns: string;
  source_name: string | null;
  source_url: string | null;
  auto_destroy_at: string | null;
  /** The state version the last inactivity destroy run was created for (0028). */
  auto_destroyed_state_version_id: string | null;
  /** The workspace's own mode; null follows the organization's default. */
  execution_mode: string | null;
  agent_pool_id: string | null;
  /** The organization's SSH key its runs clone modules with (0041); null when none. */
  ssh_key_id: string | null;
  /** Creation order, handed out by the database (db/creation-order.ts); the site-admin list orders by it. */
  seq: Generated<number>;
}

/** A workspace (`consumer_id`) allowed to read another's state. */
export interface WorkspaceRemoteStateConsumersTable {
  workspace_id: string;
  consumer_id: string;
  created_at: string;
}

export interface PoliciesTable {
  id: string;
  organization_id: string;
  name: string;
  description: string | null;
  kind: string;
  /** OPA only: the query that decides. */
  query: string | null;
  enforcement_level: string;
  /** Null: `<name>.sentinel` (or `.rego`). */
  enforce_path: string | null;
  /** The uploaded source, as uploaded; null until the first upload. */
  source: Uint8Array | null;
  created_at: string;
  updated_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface PolicySetPoliciesTable {
  policy_set_id: string;
  policy_id: string;
  created_at: string;
}

export interface PolicySetVersionsTable {
  id: string;
  policy_set_id: string;
  status: string;
  source: string;
  /** Why the upload was refused; set exactly when errored. */
  error: string | null;
  /** JSON: the policies, modules and params sentinel.hcl declared; set exactly when ready. */
  manifest: string | null;
  policy_count: number;
  created_at: string;
  updated_at: string;
  ready_at: string | null;
  errored_at: string | null;
  /** Creation order, handed out by the database (db/creation-order.ts). */
  seq: Generated<number>;
}

export interface PolicySetProjectsTable {
  policy_set_id: string;
  project_id: string;
  created_at: string;
}

export interface PolicySetWorkspacesTable {
  policy_set_id: string;
  workspace_id: string;
  created_at: string;
}

/** A workspace a policy set never applies to, whatever else it is attached to. */
export interface PolicySetWorkspaceExclusionsTable {
  policy_set_id: string;
  workspace_id: string;
  created_at: string;
}

export interface PolicySetParametersTable {
  id: string;
  policy_set_id: string;
  key: string;
  category: string;
  sensitive: DbBool;
  /** Clear text; null exactly when the parameter is sensitive. */
  value: string | null;
  /** Ciphertext (crypto/keyring.ts); set exactly when the parameter is sensitive. */
  encrypted_value: string | null;
  created_at: string;
  updated_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

/** A team's access to a project: the level and the effective value of each permission. */
export interface TeamProjectsTable {
  id: string;
  team_id: string;
  project_id: string;
  access: string;
  project_settings: string;
  project_teams: string;
  project_variable_sets: string;
  workspace_runs: string;
  workspace_sentinel_mocks: string;
  workspace_state_versions: string;
  workspace_variables: string;
  workspace_create: DbBool;
  workspace_locking: DbBool;
  workspace_delete: DbBool;
  workspace_move: DbBool;
  workspace_run_tasks: DbBool;
  created_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface AgentPoolsTable {
  id: string;
  organization_id: string;
  name: string;
  organization_scoped: DbBool;
  created_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

/** A workspace an agent pool may serve (its `allowed-workspaces`). */
export interface AgentPoolAllowedWorkspacesTable {
  agent_pool_id: string;
  workspace_id: string;
  created_at: string;
}

/** What an agent last reported; `unknown` is never stored, it is derived from `last_ping_at`. */
export type StoredAgentStatus = 'idle' | 'busy' | 'exited' | 'errored';

export interface AgentsTable {
  id: string;
  agent_pool_id: string;
  name: string | null;
  status: StoredAgentStatus;
  ip_address: string | null;
  last_ping_at: string;
  created_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

/** A key (and value, "" for a key-only tag) on a workspace or a project; `position` keeps arrival order. */
export interface TagBindingsColumns {
  id: string;
  key: string;
  value: string;
  position: number;
  created_at: string;
}
export interface WorkspaceTagBindingsTable extends TagBindingsColumns {
  workspace_id: string;
}
export interface ProjectTagBindingsTable extends TagBindingsColumns {
  project_id: string;
}

/** The id the flat tag API gives each key used on an organization's workspaces. */
export interface TagsTable {
  id: string;
  organization_id: string;
  name: string;
  created_at: string;
}

/** A locked workspace and who holds the lock (a user, a team or a run). */
export interface WorkspaceLocksTable {
  workspace_id: string;
  holder_type: 'users' | 'teams' | 'runs';
  holder_id: string;
  reason: string | null;
  locked_at: string;
}

export type StateVersionStatus = 'pending' | 'finalized' | 'discarded';

export interface StateVersionsTable {
  id: string;
  workspace_id: string;
  /** bigint: PostgreSQL hands it back as text; stores convert. */
  serial: ColumnType<number | string, number, number>;
  lineage: string | null;
  md5: string;
  status: StateVersionStatus;
  /** Order of finalization within the workspace; the highest is the current version. */
  position: number | null;
  state_size: number | null;
  state_format_version: number | null;
  terraform_version: string | null;
  /** JSON, derived from the state when it arrives. */
  resources: string | null;
  /** The sum of `resources`' counts (null with them): what a workspace's `resource-count` shows. */
  resource_count: number | null;
  /**
   * JSON: each managed resource instance with a digest of its attributes and its history (the
   * workspace's resources list); null before migration 0038 and while pending.
   */
  resource_instances: string | null;
  providers: string | null;
  modules: string | null;
  billable_rum_count: number | null;
  json_state_uploaded: DbBool;
  /** What the create was told: the upload that finalizes a pending version skips the sequence checks too. */
  force: DbBool;
  /** The lock the creator held (holder and since when): a pending version is finalized only under it. */
  lock_holder_type: string | null;
  lock_holder_id: string | null;
  lock_locked_at: string | null;
  /** The token that created it (no foreign key: a deleted token leaves the version unfinalizable, as meant). */
  created_by_token: string | null;
  created_by: string | null;
  run_id: string | null;
  created_at: string;
  finalized_at: string | null;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

/** State bytes, sealed with the keyring (crypto/keyring.ts); kind `state` or `json-state`. */
export interface StateVersionOutputsTable {
  id: string;
  state_version_id: string;
  position: number;
  name: string;
  sensitive: DbBool;
  type: string;
  detailed_type: string | null;
  /** The value as JSON text, sealed with the keyring. */
  sealed_value: string;
}

/** A team's access to one workspace: the level and the effective value of each permission. */
export interface TeamWorkspacesTable {
  id: string;
  team_id: string;
  workspace_id: string;
  access: string;
  runs: string;
  variables: string;
  state_versions: string;
  sentinel_mocks: string;
  workspace_locking: DbBool;
  run_tasks: DbBool;
  created_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface ConfigurationVersionsTable {
  id: string;
  workspace_id: string;
  status: string;
  source: string;
  auto_queue_runs: DbBool;
  speculative: DbBool;
  provisional: DbBool;
  /**
   * Non-null exactly when the status is `uploaded` (a check constraint SQLite cannot drop): since
   * migration 0029 an empty marker, the tarball itself being in the blob store.
   */
  archive: Uint8Array | null;
  archive_size: number | null;
  created_at: string;
  uploaded_at: string | null;
  /** When it was archived (its archive dropped); null while it is not. */
  archived_at: Generated<string | null>;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

export interface RunsTable {
  id: string;
  workspace_id: string;
  configuration_version_id: string;
  status: string;
  message: string;
  source: string;
  is_destroy: DbBool;
  refresh: DbBool;
  refresh_only: DbBool;
  plan_only: DbBool;
  auto_apply: DbBool;
  allow_empty_apply: DbBool;
  save_plan: DbBool;
  speculative: DbBool;
  has_changes: DbBool;
  target_addrs: string;
  replace_addrs: string;
  variables: string;
  status_timestamps: string;
  created_by_user_id: string | null;
  confirmed_by_user_id: string | null;
  terraform_version: string | null;
  created_at: string;
  /** Creation order, handed out by the database (db/creation-order.ts); lists order by it. */
  seq: Generated<number>;
}

/** One user in one organization: `invited` until the user accepts, then `active` (migration 0023). */
export interface OrganizationMembershipsTable {
  id: string;
  organization_id: string;
  user_id: string;
  status: 'invited' | 'active';
  created_at: string;
  seq: Generated<number>;
}

/** The teams an invitation puts its user on when accepted. */
export interface OrganizationMembershipTeamsTable {
  membership_id: string;
  team_id: string;
  created_at: string;
}

/** A browser session (migration 0023): the cookie's secret only as its digest. */
export interface SessionsTable {
  id: string;
  digest: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end, whatever the session's use. */
  expires_at: string;
  revoked_at: string | null;
  address: string | null;
}

/** Failed sign-ins for one key (`account:<username>` or `address:<ip>`). */
export interface SignInThrottlesTable {
  key: string;
  failures: number;
  window_started_at: string;
  blocked_until: string | null;
}

/** A run's plan or apply phase: what a runner claims. */
export interface JobsTable {
  id: string;
  run_id: string;
  phase: string;
  status: string;
  agent_pool_id: string | null;
  runner: string | null;
  heartbeat_at: string | null;
  status_timestamps: string;
  additions: number | null;
  changes: number | null;
  destructions: number | null;
  imports: number | null;
  log_size: number;
  log_complete: DbBool;
  created_at: string;
  /** When a cancel of the running job was requested (migration 0034); null: none. */
  cancel_requested_at: string | null;
}

/** Every byte Hangar keeps on the database backend (blobs/): one row per sealed part. */
export interface BlobsTable {
  family: string;
  owner: string;
  name: string;
  /** The part's byte offset in its blob: 0 for a whole blob, the running length for a log. */
  part: number;
  /** The key that sealed `body`; null only for archives an older release kept unsealed. */
  key_id: string | null;
  body: Uint8Array;
  /** How the plaintext was packed before sealing (migration 0037): 'zstd', or null as it was. */
  codec: 'zstd' | null;
  size: number;
  created_at: string;
}

/** Owners deleted (triggers, migration 0029) whose blobs the sweep has yet to remove. */
export interface BlobDeletionsTable {
  family: string;
  owner: string;
}

export interface CommentsTable {
  id: string;
  run_id: string;
  body: string;
  created_by_user_id: string | null;
  created_at: string;
  seq: Generated<number>;
}

export interface RunEventsTable {
  id: string;
  run_id: string;
  action: string;
  description: string | null;
  actor_user_id: string | null;
  comment_id: string | null;
  seq: Generated<number>;
  created_at: string;
}

export interface Schema {
  users: UsersTable;
  organizations: OrganizationsTable;
  teams: TeamsTable;
  team_memberships: TeamMembershipsTable;
  auth_tokens: AuthTokensTable;
  projects: ProjectsTable;
  organization_project_counts: OrganizationProjectCountsTable;
  project_name_grams: ProjectNameGramsTable;
  policy_sets: PolicySetsTable;
  policy_set_projects: PolicySetProjectsTable;
  policy_set_workspaces: PolicySetWorkspacesTable;
  policy_set_workspace_exclusions: PolicySetWorkspaceExclusionsTable;
  policy_set_parameters: PolicySetParametersTable;
  policies: PoliciesTable;
  policy_set_policies: PolicySetPoliciesTable;
  policy_set_versions: PolicySetVersionsTable;
  workspaces: WorkspacesTable;
  workspace_remote_state_consumers: WorkspaceRemoteStateConsumersTable;
  team_projects: TeamProjectsTable;
  agent_pools: AgentPoolsTable;
  agent_pool_allowed_workspaces: AgentPoolAllowedWorkspacesTable;
  agents: AgentsTable;
  workspace_tag_bindings: WorkspaceTagBindingsTable;
  project_tag_bindings: ProjectTagBindingsTable;
  tags: TagsTable;
  workspace_locks: WorkspaceLocksTable;
  state_versions: StateVersionsTable;
  state_version_outputs: StateVersionOutputsTable;
  team_workspaces: TeamWorkspacesTable;
  configuration_versions: ConfigurationVersionsTable;
  runs: RunsTable;
  organization_memberships: OrganizationMembershipsTable;
  organization_membership_teams: OrganizationMembershipTeamsTable;
  sessions: SessionsTable;
  sign_in_throttles: SignInThrottlesTable;
  variable_sets: VariableSetsTable;
  variable_set_workspaces: VariableSetWorkspacesTable;
  variable_set_projects: VariableSetProjectsTable;
  variables: VariablesTable;
  jobs: JobsTable;
  blobs: BlobsTable;
  blob_deletions: BlobDeletionsTable;
  run_events: RunEventsTable;
  comments: CommentsTable;
  policy_checks: PolicyChecksTable;
  login_codes: LoginCodesTable;
  oidc_sign_ins: OidcSignInsTable;
  user_identities: UserIdentitiesTable;
  run_triggers: RunTriggersTable;
  notification_configurations: NotificationConfigurationsTable;
  notification_configuration_users: NotificationConfigurationUsersTable;
  notification_deliveries: NotificationDeliveriesTable;
  notification_delivery_responses: NotificationDeliveryResponsesTable;
  plan_exports: PlanExportsTable;
  ssh_keys: SshKeysTable;
}

/** An organization's SSH private key (0041): always sealed, never shown. */
export interface SshKeysTable {
  id: string;
  organization_id: string;
  name: string;
  /** Ciphertext (crypto/keyring.ts), the row's id as associated data. */
  encrypted_value: string;
  created_at: string;
  updated_at: string;
  seq: Generated<number>;
}

/** A run trigger: a successful apply in `sourceable_id` queues a run in `workspace_id`. */
export interface PlanExportsTable {
  id: string;
  plan_id: string;
  data_type: string;
  created_at: string;
  finished_at: string;
}

export interface RunTriggersTable {
  id: string;
  workspace_id: string;
  sourceable_id: string;
  created_at: string;
  seq: Generated<number>;
}

export interface PolicyChecksTable {
  id: string;
  run_id: string;
  status: string;
  scope: string;
  result: string | null;
  output: string | null;
  status_timestamps: Generated<string>;
  overridden_by_user_id: string | null;
  created_at: string;
  seq: Generated<number>;
}

export interface VariableSetsTable {
  id: string;
  organization_id: string;
  /** The owning project (TFE's `parent`), or null for a set the organization owns. */
  project_id: string | null;
  name: string;
  description: string;
  global: DbBool;
  priority: DbBool;
  created_at: string;
  updated_at: string;
  seq: Generated<number>;
}

export interface VariableSetWorkspacesTable {
  variable_set_id: string;
  workspace_id: string;
  created_at: string;
}

export interface VariableSetProjectsTable {
  variable_set_id: string;
  project_id: string;
  created_at: string;
}

/** A workspace's variable or a variable set's: exactly one of the two owners is set. */
export interface VariablesTable {
  id: string;
  workspace_id: string | null;
  variable_set_id: string | null;
  key: string;
  category: string;
  description: string;
  hcl: DbBool;
  sensitive: DbBool;
  /** Clear text; null exactly when the variable is sensitive. */
  value: string | null;
  /** Ciphertext (crypto/keyring.ts); set exactly when the variable is sensitive. */
  encrypted_value: string | null;
  version_id: string;
  created_at: string;
  updated_at: string;
  seq: Generated<number>;
}

/** A `terraform login` authorization code (by digest): single use, short-lived. */
export interface LoginCodesTable {
  digest: string;
  user_id: string;
  client_id: string;
  redirect_uri: string;
  /** PKCE S256: base64url(SHA-256(verifier)). */
  code_challenge: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The token the code was traded for. */
  token_id: string | null;
}

/** A browser's sign-in under way at the OpenID provider (by the digest of its cookie). */
export interface OidcSignInsTable {
  digest: string;
  state: string;
  nonce: string;
  code_verifier: string;
  redirect_uri: string;
  return_to: string;
  created_at: string;
  expires_at: string;
}

/** An OpenID provider's account (issuer, subject) and the user it signs in as. */
export interface UserIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: string;
}

/** Where a workspace's (or team's) run events are sent; the token sealed, never read back by the API. */
export interface NotificationConfigurationsTable {
  id: string;
  workspace_id: string | null;
  team_id: string | null;
  name: string;
  destination_type: string;
  enabled: DbBool;
  url: string | null;
  encrypted_token: string | null;
  /** JSON array of trigger names. */
  triggers: string;
  /** JSON array of addresses. */
  email_addresses: string;
  created_at: string;
  updated_at: string;
  seq: Generated<number>;
}

/** The organization members an email configuration notifies. */
export interface NotificationConfigurationUsersTable {
  configuration_id: string;
  user_id: string;
}

/** The outbox: one row per notification still to send. */
export interface NotificationDeliveriesTable {
  id: string;
  configuration_id: string;
  trigger: string;
  /** JSON: the run as the payload describes it. */
  subject: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: string;
  created_at: string;
}

/** The outcome of one delivery, as TFE's `delivery-responses` show it. */
export interface NotificationDeliveryResponsesTable {
  id: string;
  configuration_id: string;
  url: string;
  body: string;
  code: string;
  /** JSON object: header name → values. */
  headers: string;
  successful: DbBool;
  created_at: string;
  seq: Generated<number>;
}
