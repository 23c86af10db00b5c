// Plan exports, as TFE has them: a request for the data of one finished plan in an export format
// (only `sentinel-mock-bundle-v0`, Sentinel mocks of the plan). The bundle is built from what the
// plan's job already keeps (its plan JSON) each time it is downloaded, so no bytes are stored
// here: a row says which plan, in which format, and since when (an export is downloadable for an
// hour after it finished). Gone with the plan's job, and so with its run and workspace.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('plan_exports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('plan_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('data_type', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text', (c) => c.notNull())
    .execute();
  // The one lookup besides the id: the plan's exports of a format, when another is asked for.
  await db.schema.createIndex('plan_exports_plan_type').on('plan_exports').columns(['plan_id', 'data_type', 'finished_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
