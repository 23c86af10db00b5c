import type { Queryable } from '../db/index.ts';
import type { Page } from '../jsonapi/pagination.ts';

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

const read = (r: { id: string; workspace_id: string; sourceable_id: string; created_at: string }): RunTrigger => ({
  id: r.id,
  workspaceId: r.workspace_id,
  sourceableId: r.sourceable_id,
  createdAt: r.created_at,
});

const column = (direction: Direction) => (direction === 'inbound' ? 'workspace_id' : 'sourceable_id');

/** Inserts the trigger; a unique violation means the pair exists, a foreign key one that a workspace is gone. */
export async function insertRunTrigger(q: Queryable, t: RunTrigger): Promise<void> {
  await q.insertInto('run_triggers').values({ id: t.id, workspace_id: t.workspaceId, sourceable_id: t.sourceableId, created_at: t.createdAt }).execute();
}

export async function findRunTrigger(q: Queryable, id: string): Promise<RunTrigger | undefined> {
  const r = await q.selectFrom('run_triggers').select(['id', 'workspace_id', 'sourceable_id', 'created_at']).where('id', '=', id).executeTakeFirst();
  return r && read(r);
}

export async function deleteRunTrigger(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('run_triggers').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** How many triggers the workspace has in `direction`. */
export async function countRunTriggers(q: Queryable, workspaceId: string, direction: Direction): Promise<number> {
  const r = await q
    .selectFrom('run_triggers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(column(direction), '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A page of the workspace's triggers in `direction`, in creation order. */
export async function listRunTriggers(q: Queryable, workspaceId: string, direction: Direction, page: Page): Promise<RunTrigger[]> {
  const rows = await q
    .selectFrom('run_triggers')
    .select(['id', 'workspace_id', 'sourceable_id', 'created_at'])
    .where(column(direction), '=', workspaceId)
    .orderBy('seq')
    .limit(page.size)
    .offset(page.offset)
    .execute();
  return rows.map(read);
}

/** The workspaces a successful apply in `sourceableId` queues runs in, in creation order. */
export async function targetsOf(q: Queryable, sourceableId: string): Promise<string[]> {
  const rows = await q.selectFrom('run_triggers').select('workspace_id').where('sourceable_id', '=', sourceableId).orderBy('seq').execute();
  return rows.map((r) => r.workspace_id);
}
