// A state version keeps its managed resource instances (address, module, provider, a digest of the
// attributes, and when each was created and last changed), derived once when its state is stored,
// for the workspace's resources list. Versions of older releases keep null: the list derives
// theirs from the state file when asked, and the next version stored derives it once to carry
// creation dates forward.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('state_versions').addColumn('resource_instances', 'text').execute();
}
