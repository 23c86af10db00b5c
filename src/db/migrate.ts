// Migrations are TypeScript modules listed here in order; Kysely records what has run.
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import type { Database } from './index.ts';
import * as foundation from './migrations/0001_foundation.ts';
import * as projectsWorkspaces from './migrations/0002_projects_workspaces.ts';
import * as policySets from './migrations/0003_policy_sets.ts';
import * as agentPools from './migrations/0004_agent_pools.ts';
import * as policySetWorkspaces from './migrations/0005_policy_set_workspaces.ts';
import * as agentPoolWorkspaces from './migrations/0006_agent_pool_workspaces.ts';
import * as workspaceSettings from './migrations/0007_workspace_settings.ts';
import * as accounts from './migrations/0008_accounts.ts';
import * as teamsPolicies from './migrations/0009_teams_policies.ts';
import * as tags from './migrations/0010_tags.ts';
import * as state from './migrations/0011_state.ts';
import * as performance from './migrations/0012_performance.ts';
import * as runs from './migrations/0013_runs.ts';
import * as nameGrams from './migrations/0014_name_grams.ts';
import * as teamTokens from './migrations/0015_team_tokens.ts';
import * as signedConfigurationUploads from './migrations/0016_signed_configuration_uploads.ts';
import * as trigramIndexDirectWrites from './migrations/0017_trigram_index_direct_writes.ts';
import * as creationOrder from './migrations/0018_creation_order.ts';
import * as variables from './migrations/0019_variables.ts';
import * as runExecution from './migrations/0020_run_execution.ts';
import * as pendingStateVersions from './migrations/0022_pending_state_versions.ts';
import * as people from './migrations/0023_people.ts';
import * as policies from './migrations/0024_policies.ts';
import * as adminWorkspaces from './migrations/0025_admin_workspaces.ts';
import * as policyChecks from './migrations/0026_policy_checks.ts';
import * as autoDestroy from './migrations/0028_auto_destroy.ts';
import * as blobs from './migrations/0029_blobs.ts';
import * as login from './migrations/0032_login.ts';
import * as runCancelRequests from './migrations/0034_run_cancel_requests.ts';
import * as watchedWorkspaceGrantsPolicySets from './migrations/0035_watched_workspace_grants_policy_sets.ts';
import * as stateResourceCount from './migrations/0036_state_resource_count.ts';
import * as blobCodec from './migrations/0037_blob_codec.ts';
import * as stateResourceInstances from './migrations/0038_state_resource_instances.ts';
import * as runTriggers from './migrations/0039_run_triggers.ts';
import * as notificationConfigurations from './migrations/0040_notification_configurations.ts';
import * as planExports from './migrations/0042_plan_exports.ts';
import * as sshKeys from './migrations/0041_ssh_keys.ts';

const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_projects_workspaces': projectsWorkspaces,
  '0003_policy_sets': policySets,
  '0004_agent_pools': agentPools,
  '0005_policy_set_workspaces': policySetWorkspaces,
  '0006_agent_pool_workspaces': agentPoolWorkspaces,
  '0007_workspace_settings': workspaceSettings,
  '0008_accounts': accounts,
  '0009_teams_policies': teamsPolicies,
  '0010_tags': tags,
  '0011_state': state,
  '0012_performance': performance,
  '0013_runs': runs,
  '0014_name_grams': nameGrams,
  '0015_team_tokens': teamTokens,
  '0016_signed_configuration_uploads': signedConfigurationUploads,
  '0017_trigram_index_direct_writes': trigramIndexDirectWrites,
  '0018_creation_order': creationOrder,
  '0019_variables': variables,
  '0020_run_execution': runExecution,
  '0022_pending_state_versions': pendingStateVersions,
  '0023_people': people,
  '0024_policies': policies,
  '0025_admin_workspaces': adminWorkspaces,
  '0026_policy_checks': policyChecks,
  '0028_auto_destroy': autoDestroy,
  '0029_blobs': blobs,
  '0032_login': login,
  '0034_run_cancel_requests': runCancelRequests,
  '0035_watched_workspace_grants_policy_sets': watchedWorkspaceGrantsPolicySets,
  '0036_state_resource_count': stateResourceCount,
  '0037_blob_codec': blobCodec,
  '0038_state_resource_instances': stateResourceInstances,
  '0039_run_triggers': runTriggers,
  '0040_notification_configurations': notificationConfigurations,
  '0042_plan_exports': planExports,
  '0041_ssh_keys': sshKeys,
};

async function migrator(database: Database): Promise<Migrator> {
  return new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    // Numbers are handed out ahead of time to work landing in parallel, so a database may have run
    // a later number before an earlier one arrives; each migration stands on its own.
    allowUnorderedMigrations: true,
    // Unless told the schema, Kysely looks for its bookkeeping tables in every schema of the
    // PostgreSQL database; one found in another schema (a parallel test suite, another
    // installation) makes it skip creating its own, and migrating fails.
    ...(database.dialect === 'postgres' ? { migrationTableSchema: await currentSchema(database) } : {}),
  });
}

/** The newest migration this build knows: what a database made by it is at. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1)!;

/** The names of every migration this build knows, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(migrations);

/**
 * The database has run migrations this build does not know: a newer Hangar migrated it. Running
 * on it could misread or damage what the newer schema holds, so nothing starts.
 */
export class SchemaTooNewError extends Error {
  readonly unknown: string[];
  constructor(unknown: string[]) {
    super(`database schema ${unknown.join(', ')} is newer than this build knows (latest ${LATEST_MIGRATION})`);
    this.unknown = unknown;
  }
}

/** The migrations the database records as run, in the order they ran; none for an empty database. */
export async function executedMigrations(database: Database): Promise<string[]> {
  const exists =
    database.dialect === 'sqlite'
      ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(database.db)
      : await sql<{
          n: number;
        }>`select count(*) as n from information_schema.tables where table_schema = current_schema() and table_name = 'kysely_migration'`.execute(database.db);
  if (Number(exists.rows[0]!.n) === 0) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by timestamp, name`.execute(database.db);
  return rows.map((r) => r.name);
}

/**
 * Numbers are handed out in parallel and migrations run unordered, so "newer" is not a larger
 * number: it is any migration the database ran that this build's list does not hold.
 */
export async function refuseNewerSchema(database: Database): Promise<void> {
  const unknown = (await executedMigrations(database)).filter((name) => !Object.hasOwn(migrations, name));
  if (unknown.length > 0) throw new SchemaTooNewError(unknown.sort());
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  await refuseNewerSchema(database);
  const { error, results } = await (await migrator(database)).migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The migrations this build knows that the database has not run yet (none: it is current). */
export async function pendingMigrations(database: Database): Promise<string[]> {
  await refuseNewerSchema(database);
  const all = await (await migrator(database)).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

async function currentSchema(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  return rows[0]!.schema;
}
