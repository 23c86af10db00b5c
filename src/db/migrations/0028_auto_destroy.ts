// Auto-destroy fires once per idle spell: the workspace remembers the state version its last
// inactivity destroy run was created for, so the scheduler's conditional write (set it where it
// is not already that version) lets exactly one of many instances create the run.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('auto_destroyed_state_version_id', 'text').execute();
  // Every scheduler tick asks which durations are in effect anywhere: answered from these
  // indexes (almost every value is null), not by reading every project and workspace.
  await db.schema.createIndex('projects_auto_destroy_duration').on('projects').column('auto_destroy_activity_duration').execute();
  await db.schema.createIndex('workspaces_auto_destroy_duration').on('workspaces').column('auto_destroy_activity_duration').execute();
  await db.schema.createIndex('workspaces_auto_destroy_at').on('workspaces').column('auto_destroy_at').execute();
}
