// A cancel of a run whose plan or apply is executing is a request (as TFE has it): the runner
// interrupts terraform and the run ends when terraform exits. When the request was made is kept
// on the job, so the runner learns of it through its heartbeat and force-cancel knows its cool-off.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('cancel_requested_at', 'text').execute();
}
