// Auto-destroy fires once per idle spell: the workspace remembers the state version its last
// inactivity destroy run was created for, so the scheduler's conditional write (set it where it
// is not already that version) lets exactly one of many instances create the run.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('auto_destroyed_state_version_id', 'text').execute();
}
