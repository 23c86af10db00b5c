// Join tables: one thing linked to several of another kind (a policy set's projects, an agent
// pool's allowed workspaces, a team's members). Each is (from id, to id, created_at) with a
// unique (from, to) pair, and every one needs the same four operations, written once here.
import type { Kysely } from 'kysely';
import type { Queryable } from './index.ts';
import type { Schema } from './schema.ts';

/** The join tables, each with its "from" and "to" id columns. */
interface LinkTables {
  policy_set_projects: { from: 'policy_set_id'; to: 'project_id' };
  policy_set_workspaces: { from: 'policy_set_id'; to: 'workspace_id' };
  policy_set_workspace_exclusions: { from: 'policy_set_id'; to: 'workspace_id' };
  policy_set_policies: { from: 'policy_set_id'; to: 'policy_id' };
  agent_pool_allowed_workspaces: { from: 'agent_pool_id'; to: 'workspace_id' };
  team_memberships: { from: 'team_id'; to: 'user_id' };
  variable_set_workspaces: { from: 'variable_set_id'; to: 'workspace_id' };
  variable_set_projects: { from: 'variable_set_id'; to: 'project_id' };
}

// The table and column names vary, so the queries below are built untyped: LinkTables above is
// what keeps each use of them to a real join table and its real columns.
type Untyped = Kysely<any>;

export interface Links {
  /** from id → linked ids, oldest link first, for several at once (one query). */
  of(q: Queryable, fromIds: readonly string[]): Promise<Map<string, string[]>>;
  /** Adds links; those that exist already stay as they are. */
  add(q: Queryable, fromId: string, toIds: readonly string[], createdAt: string): Promise<void>;
  remove(q: Queryable, fromId: string, toIds: readonly string[]): Promise<void>;
  /** Makes `toIds` the whole list in two statements; links that stay keep their row (and their place in the order). */
  replace(q: Queryable, fromId: string, toIds: readonly string[], createdAt: string): Promise<void>;
}

/**
 * The operations on one join table. `tieBreak`: among links made at the same moment, order by
 * the linked id (false keeps the database's order, as team members always have).
 */
export function links<T extends keyof LinkTables & keyof Schema>(
  table: T,
  columns: { from: LinkTables[T]['from']; to: LinkTables[T]['to'] },
  options: { tieBreak: boolean } = { tieBreak: true },
): Links {
  const { from, to }: { from: string; to: string } = columns;
  const name: string = table;
  const untyped = (q: Queryable) => q as unknown as Untyped;
  const add = async (q: Queryable, fromId: string, toIds: readonly string[], createdAt: string) => {
    if (toIds.length === 0) return;
    await untyped(q)
      .insertInto(name)
      .values(toIds.map((id) => ({ [from]: fromId, [to]: id, created_at: createdAt })))
      .onConflict((oc) => oc.columns([from, to]).doNothing())
      .execute();
  };
  return {
    async of(q, fromIds) {
      const result = new Map<string, string[]>(fromIds.map((id) => [id, []]));
      if (fromIds.length === 0) return result;
      let query = untyped(q)
        .selectFrom(name)
        .select([from, to])
        .where(from, 'in', [...fromIds])
        .orderBy('created_at');
      if (options.tieBreak) query = query.orderBy(to);
      for (const r of await query.execute()) result.get(r[from])?.push(r[to]);
      return result;
    },
    add,
    async remove(q, fromId, toIds) {
      if (toIds.length === 0) return;
      await untyped(q)
        .deleteFrom(name)
        .where(from, '=', fromId)
        .where(to, 'in', [...toIds])
        .execute();
    },
    async replace(q, fromId, toIds, createdAt) {
      let removal = untyped(q).deleteFrom(name).where(from, '=', fromId);
      if (toIds.length) removal = removal.where(to, 'not in', [...toIds]);
      await removal.execute();
      await add(q, fromId, toIds, createdAt);
    },
  };
}
