import type { Queryable } from '../db/index.ts';
import { supportsRowLocks } from '../db/sql.ts';

export type HolderType = 'users' | 'teams' | 'runs';

export interface WorkspaceLock {
  workspaceId: string;
  holderType: HolderType;
  holderId: string;
  reason: string | null;
  lockedAt: string;
}

const read = (r: { workspace_id: string; holder_type: HolderType; holder_id: string; reason: string | null; locked_at: string }): WorkspaceLock => ({
  workspaceId: r.workspace_id,
  holderType: r.holder_type,
  holderId: r.holder_id,
  reason: r.reason,
  lockedAt: r.locked_at,
});

/** Takes the lock; a unique violation (the primary key) means someone else holds it. */
export async function insertLock(q: Queryable, lock: WorkspaceLock): Promise<void> {
  await q
    .insertInto('workspace_locks')
    .values({ workspace_id: lock.workspaceId, holder_type: lock.holderType, holder_id: lock.holderId, reason: lock.reason, locked_at: lock.lockedAt })
    .execute();
}

/** The lock of a workspace; `forUpdate` holds the row (PostgreSQL) until the transaction ends. */
export async function findLock(q: Queryable, workspaceId: string, forUpdate = false): Promise<WorkspaceLock | undefined> {
  let query = q.selectFrom('workspace_locks').selectAll().where('workspace_id', '=', workspaceId);
  if (forUpdate && supportsRowLocks(q)) query = query.forUpdate();
  const r = await query.executeTakeFirst();
  return r && read(r);
}

/** Releases the lock if `holder` holds it (or anyone, without a holder); how many rows went. */
export async function deleteLock(q: Queryable, workspaceId: string, holder?: { type: HolderType; id: string }): Promise<number> {
  let query = q.deleteFrom('workspace_locks').where('workspace_id', '=', workspaceId);
  if (holder) query = query.where('holder_type', '=', holder.type).where('holder_id', '=', holder.id);
  const r = await query.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Releases every lock `holder` holds (a deleted team's); how many went. */
export async function deleteLocksOf(q: Queryable, holder: { type: HolderType; id: string }): Promise<number> {
  const r = await q.deleteFrom('workspace_locks').where('holder_type', '=', holder.type).where('holder_id', '=', holder.id).executeTakeFirst();
  return Number(r.numDeletedRows);
}
