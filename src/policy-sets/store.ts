import { sql, type Selectable, type Updateable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { PolicySetsTable } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';

export type PolicyKind = 'sentinel' | 'opa';

export interface PolicySet {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  kind: PolicyKind;
  global: boolean;
  overridable: boolean;
  agentEnabled: boolean;
  policyToolVersion: string | null;
  createdAt: string;
  updatedAt: string;
}

function toPolicySet(r: Selectable<PolicySetsTable>): PolicySet {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    description: r.description,
    kind: r.kind === 'opa' ? 'opa' : 'sentinel',
    global: Boolean(r.global),
    overridable: Boolean(r.overridable),
    agentEnabled: Boolean(r.agent_enabled),
    policyToolVersion: r.policy_tool_version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function insertPolicySet(q: Queryable, s: PolicySet): Promise<void> {
  await q
    .insertInto('policy_sets')
    .values({
      id: s.id,
      organization_id: s.organizationId,
      name: s.name,
      description: s.description,
      kind: s.kind,
      global: s.global,
      overridable: s.overridable,
      agent_enabled: s.agentEnabled,
      policy_tool_version: s.policyToolVersion,
      created_at: s.createdAt,
      updated_at: s.updatedAt,
    })
    .execute();
}

export async function findPolicySetById(q: Queryable, id: string): Promise<PolicySet | undefined> {
  const r = await q.selectFrom('policy_sets').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toPolicySet(r);
}

/**
 * Reads the set and, on PostgreSQL, holds its row until the transaction ends. NO KEY UPDATE,
 * because the id never changes: parameter inserts (whose foreign-key check takes KEY SHARE on
 * this row) are not held up by it.
 */
export async function lockPolicySet(q: Queryable, id: string): Promise<PolicySet | undefined> {
  let query = q.selectFrom('policy_sets').selectAll().where('id', '=', id);
  if (supportsRowLocks(q)) query = query.forNoKeyUpdate();
  const r = await query.executeTakeFirst();
  return r && toPolicySet(r);
}

export interface PolicySetFilter {
  organizationId: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  kind?: PolicyKind;
}

export async function listPolicySets(q: Queryable, f: PolicySetFilter, page: { offset: number; size: number }) {
  let base = q.selectFrom('policy_sets').where('organization_id', '=', f.organizationId);
  if (f.kind) base = base.where('kind', '=', f.kind);
  if (f.search) base = base.where(containsInsensitive('name', f.search));
  const [rows, count] = await Promise.all([
    // lower(name) is what the (organization_id, lower(name)) index holds, so it serves the sort too.
    base.selectAll().orderBy(sql`lower(name)`).orderBy('id').limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toPolicySet), total: Number(count.n) };
}

export type PolicySetPatch = Partial<Pick<PolicySet, 'name' | 'description' | 'global' | 'overridable' | 'agentEnabled' | 'policyToolVersion'>> & {
  updatedAt: string;
};

export async function updatePolicySet(q: Queryable, id: string, p: PolicySetPatch): Promise<void> {
  const set: Updateable<PolicySetsTable> = { updated_at: p.updatedAt };
  if (p.name !== undefined) set.name = p.name;
  if (p.description !== undefined) set.description = p.description;
  if (p.global !== undefined) set.global = p.global;
  if (p.overridable !== undefined) set.overridable = p.overridable;
  if (p.agentEnabled !== undefined) set.agent_enabled = p.agentEnabled;
  if (p.policyToolVersion !== undefined) set.policy_tool_version = p.policyToolVersion;
  await q.updateTable('policy_sets').set(set).where('id', '=', id).execute();
}

export async function touchPolicySet(q: Queryable, id: string, updatedAt: string): Promise<void> {
  await q.updateTable('policy_sets').set({ updated_at: updatedAt }).where('id', '=', id).execute();
}

export async function deletePolicySet(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('policy_sets').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** policy set id → attached project ids, for a page of sets (one query). */
export async function projectIdsOf(q: Queryable, policySetIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(policySetIds.map((id) => [id, []]));
  if (policySetIds.length === 0) return result;
  const rows = await q
    .selectFrom('policy_set_projects')
    .select(['policy_set_id', 'project_id'])
    .where('policy_set_id', 'in', policySetIds)
    .orderBy('created_at')
    .orderBy('project_id')
    .execute();
  for (const r of rows) result.get(r.policy_set_id)?.push(r.project_id);
  return result;
}

export async function attachProjects(q: Queryable, policySetId: string, projectIds: readonly string[], createdAt: string): Promise<void> {
  if (projectIds.length === 0) return;
  await q
    .insertInto('policy_set_projects')
    .values(projectIds.map((project_id) => ({ policy_set_id: policySetId, project_id, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['policy_set_id', 'project_id']).doNothing())
    .execute();
}

export async function detachProjects(q: Queryable, policySetId: string, projectIds: readonly string[] | 'all'): Promise<void> {
  let query = q.deleteFrom('policy_set_projects').where('policy_set_id', '=', policySetId);
  if (projectIds !== 'all') {
    if (projectIds.length === 0) return;
    query = query.where('project_id', 'in', projectIds);
  }
  await query.execute();
}

/** policy set id → attached workspace ids, for a page of sets (one query). */
export async function workspaceIdsOf(q: Queryable, policySetIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(policySetIds.map((id) => [id, []]));
  if (policySetIds.length === 0) return result;
  const rows = await q
    .selectFrom('policy_set_workspaces')
    .select(['policy_set_id', 'workspace_id'])
    .where('policy_set_id', 'in', policySetIds)
    .orderBy('created_at')
    .orderBy('workspace_id')
    .execute();
  for (const r of rows) result.get(r.policy_set_id)?.push(r.workspace_id);
  return result;
}

export async function attachWorkspaces(q: Queryable, policySetId: string, workspaceIds: readonly string[], createdAt: string): Promise<void> {
  if (workspaceIds.length === 0) return;
  await q
    .insertInto('policy_set_workspaces')
    .values(workspaceIds.map((workspace_id) => ({ policy_set_id: policySetId, workspace_id, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['policy_set_id', 'workspace_id']).doNothing())
    .execute();
}

export async function detachWorkspaces(q: Queryable, policySetId: string, workspaceIds: readonly string[]): Promise<void> {
  if (workspaceIds.length === 0) return;
  await q.deleteFrom('policy_set_workspaces').where('policy_set_id', '=', policySetId).where('workspace_id', 'in', workspaceIds).execute();
}
