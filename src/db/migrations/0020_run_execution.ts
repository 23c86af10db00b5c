// Runs that execute: the runs table gains TFE's statuses and run options (rebuilt, because SQLite
// cannot change a check constraint in place; nothing references runs by foreign key), and the
// rows the pipeline works through: jobs (a run's plan and apply phases, claimed by runners),
// their logs in sealed chunks, their sealed outputs (plan file, JSON plan) and run events.
import { sql, type Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';
import { isPostgres } from '../sql.ts';

const sqlIn = (column: string, values: readonly string[]) => sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;

// Frozen here as they were when this migration was written (runs/statuses.ts owns the live lists).
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
] as const;
const JOB_STATUSES = ['pending', 'queued', 'running', 'finished', 'errored', 'canceled', 'unreachable'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runs_next')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('configuration_version_id', 'text', (c) => c.notNull().references('configuration_versions.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', RUN_STATUSES)))
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('is_destroy', 'boolean', (c) => c.notNull())
    .addColumn('refresh', 'boolean', (c) => c.notNull())
    .addColumn('refresh_only', 'boolean', (c) => c.notNull())
    .addColumn('plan_only', 'boolean', (c) => c.notNull())
    .addColumn('auto_apply', 'boolean', (c) => c.notNull())
    .addColumn('allow_empty_apply', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('save_plan', 'boolean', (c) => c.notNull().defaultTo(false))
    // Speculative runs (plan-only, or of a speculative configuration) neither queue nor lock.
    .addColumn('speculative', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('has_changes', 'boolean', (c) => c.notNull().defaultTo(false))
    // JSON arrays of strings / of {key, value}: read whole with the run, never filtered on.
    .addColumn('target_addrs', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('replace_addrs', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('variables', 'text', (c) => c.notNull().defaultTo('[]'))
    // JSON object `<status>-at` → timestamp, as TFE's status-timestamps.
    .addColumn('status_timestamps', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('confirmed_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    // Asked for by a plan-only run (TFE's `terraform-version`); null: the runner's own.
    .addColumn('terraform_version', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into runs_next (id, workspace_id, configuration_version_id, status, message, source, is_destroy, refresh, refresh_only, plan_only, auto_apply, created_by_user_id, created_at, status_timestamps)
    select id, workspace_id, configuration_version_id, status, message, source, is_destroy, refresh, refresh_only, plan_only, auto_apply, created_by_user_id, created_at,
      case when discarded_at is not null then '{"discarded-at":"' || discarded_at || '"}' when canceled_at is not null then '{"canceled-at":"' || canceled_at || '"}' else '{}' end
    from runs`.execute(db);
  await db.schema.dropTable('runs').execute();
  await db.schema.alterTable('runs_next').renameTo('runs').execute();
  // Creation order again (0018 gave the old table its `seq`; its SQLite trigger went with the
  // table, its counter row is started afresh), numbered as before: by (created_at, id).
  if (!isPostgres(db)) await sql`delete from creation_sequences where name = 'runs'`.execute(db);
  await addCreationOrder(db, 'runs');
  await db.schema.createIndex('runs_workspace_seq').on('runs').columns(['workspace_id', 'seq']).execute();
  await db.schema.createIndex('runs_configuration_version').on('runs').column('configuration_version_id').execute();
  await db.schema.createIndex('runs_created_by').on('runs').column('created_by_user_id').execute();
  await db.schema.createIndex('runs_confirmed_by').on('runs').column('confirmed_by_user_id').execute();
  // The workspace queue: the next pending run of a workspace, and the runs of an organization's queue.
  await db.schema.createIndex('runs_status').on('runs').columns(['status', 'created_at']).execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('phase', 'text', (c) => c.notNull().check(sqlIn('phase', ['plan', 'apply'])))
    .addColumn('status', 'text', (c) => c.notNull().check(sqlIn('status', JOB_STATUSES)))
    // Which runner may claim it: null for Hangar's own workers, else the agent pool of a
    // workspace in `agent` mode (no foreign key: a deleted pool must not hand its jobs to Hangar).
    .addColumn('agent_pool_id', 'text')
    .addColumn('runner', 'text')
    .addColumn('heartbeat_at', 'text')
    .addColumn('status_timestamps', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('additions', 'integer')
    .addColumn('changes', 'integer')
    .addColumn('destructions', 'integer')
    .addColumn('imports', 'integer')
    .addColumn('log_size', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('log_complete', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('jobs_run_phase', ['run_id', 'phase'])
    .execute();
  // Claims take the oldest queued job; the reaper looks for running jobs whose heartbeat stopped.
  await db.schema.createIndex('jobs_status').on('jobs').columns(['status', 'agent_pool_id', 'created_at']).execute();

  await db.schema
    .createTable('job_log_chunks')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_log_chunks_pk', ['job_id', 'position'])
    .execute();

  await db.schema
    .createTable('job_blobs')
    .addColumn('job_id', 'text', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sqlIn('kind', ['plan-file', 'plan-json'])))
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('job_blobs_pk', ['job_id', 'kind'])
    .execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await addCreationOrder(db, 'comments');
  await db.schema.createIndex('comments_run_seq').on('comments').columns(['run_id', 'seq']).execute();
  await db.schema.createIndex('comments_created_by').on('comments').column('created_by_user_id').execute();

  await db.schema
    .createTable('run_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('actor_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('comment_id', 'text', (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Events of a run share milliseconds: they are listed in creation order.
  await addCreationOrder(db, 'run_events');
  await db.schema.createIndex('run_events_run_seq').on('run_events').columns(['run_id', 'seq']).execute();
  await db.schema.createIndex('run_events_actor').on('run_events').column('actor_user_id').execute();
  await db.schema.createIndex('run_events_comment').on('run_events').column('comment_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
