// Policy checks of runs: the runs table's status check gains the policy statuses, and each run's
// checks (one per run today) keep their outcome, their log and their status timestamps.
import { sql, type Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';
import { isPostgres } from '../sql.ts';

// Frozen here (runs/statuses.ts owns the live list).
const RUN_STATUSES = [
  'pending',
  'plan_queued',
  'planning',
  'planned',
  'planned_and_finished',
  'planned_and_saved',
  'confirmed',
  'apply_queued',
  'applying',
  'applied',
  'discarded',
  'errored',
  'canceled',
  'force_canceled',
  'policy_checking',
  'policy_checked',
  'policy_override',
];
const sqlIn = (column: string, values: readonly string[]) => sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    const { rows } = await sql<{
      conname: string;
    }>`select conname from pg_constraint where conrelid = 'runs'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%status%'`.execute(db);
    for (const r of rows) await sql`alter table runs drop constraint ${sql.ref(r.conname)}`.execute(db);
    await sql`alter table runs add constraint runs_status_check check (status in (${sql.join(RUN_STATUSES.map((s) => sql.lit(s)))}))`.execute(db);
  } else {
    // SQLite cannot change a check constraint in place, and rebuilding `runs` would cascade into
    // the tables that reference it: the status moves to a new column with the wider check (a
    // column's own check does not stop DROP COLUMN). The default only satisfies ADD COLUMN.
    await db.schema
      .alterTable('runs')
      .addColumn('status_next', 'text', (c) => c.notNull().defaultTo('pending').check(sqlIn('status_next', RUN_STATUSES)))
      .execute();
    await sql`update runs set status_next = status`.execute(db);
    await db.schema.dropIndex('runs_status').execute();
    await db.schema.alterTable('runs').dropColumn('status').execute();
    await db.schema.alterTable('runs').renameColumn('status_next', 'status').execute();
    await db.schema.createIndex('runs_status').on('runs').columns(['status', 'created_at']).execute();
  }

  await db.schema
    .createTable('policy_checks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'queued', 'passed', 'soft_failed', 'hard_failed', 'overridden', 'errored', 'canceled', 'unreachable')`),
    )
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('organization', 'workspace')`))
    // JSON: TFE's `result` object (counts, duration, per-policy outcome), once evaluated.
    .addColumn('result', 'text')
    // The check's log: each policy's outcome and print() output, never a sensitive value.
    .addColumn('output', 'text')
    .addColumn('status_timestamps', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('overridden_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await addCreationOrder(db, 'policy_checks');
  await db.schema.createIndex('policy_checks_run_seq').on('policy_checks').columns(['run_id', 'seq']).execute();
  // The scheduler's look for checks a stopped server left queued.
  await db.schema.createIndex('policy_checks_status_created').on('policy_checks').columns(['status', 'created_at']).execute();
  await db.schema.createIndex('policy_checks_overridden_by').on('policy_checks').column('overridden_by_user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
