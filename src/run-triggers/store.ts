import { columns } from '../db/columns.ts';
import type { Queryable } from '../db/index.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { RunTriggersTable } from '../db/schema.ts';

export interface RunTrigger {
  id: string;
  /** The workspace that gets a run. */
  workspaceId: string;
  /** The workspace whose successful applies queue it. */
  sourceableId: string;
  createdAt: string;
}

/** Inbound: the triggers that queue runs in the workspace; outbound: those its applies fire. */
export type Direction = 'inbound' | 'outbound';

const RUN_TRIGGERS = columns<RunTriggersTable, RunTrigger>({
  id: 'id',
  workspaceId: 'workspace_id',
  sourceableId: 'sourceable_id',
  createdAt: 'created_at',
});

const column = (direction: Direction) => (direction === 'inbound' ? 'workspace_id' : 'sourceable_id');

/** Inserts the trigger; a unique violation means the pair exists, a foreign key one that a workspace is gone. */
export async function insertRunTrigger(q: Queryable, t: RunTrigger): Promise<void> {
  await q.insertInto('run_triggers').values(RUN_TRIGGERS.write(t)).execute();
}

export async function findRunTrigger(q: Queryable, id: string): Promise<RunTrigger | undefined> {
  const r = await q.selectFrom('run_triggers').selectAll().where('id', '=', id).executeTakeFirst();
  return r && RUN_TRIGGERS.read(r);
}

export async function deleteRunTrigger(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('run_triggers').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** How many source workspaces the workspace has (its inbound triggers). */
export async function countSources(q: Queryable, workspaceId: string): Promise<number> {
  const r = await q
    .selectFrom('run_triggers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A page of the workspace's triggers in `direction`, in creation order, and how many there are: one statement. */
export async function listRunTriggers(q: Queryable, workspaceId: string, direction: Direction, page: Window) {
  const base = q.selectFrom('run_triggers').where(column(direction), '=', workspaceId);
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, RUN_TRIGGERS.read);
}

/** The workspaces a successful apply in `sourceableId` queues runs in, in creation order. */
export async function targetsOf(q: Queryable, sourceableId: string): Promise<string[]> {
  const rows = await q.selectFrom('run_triggers').select('workspace_id').where('sourceable_id', '=', sourceableId).orderBy('seq').execute();
  return rows.map((r) => r.workspace_id);
}
