import { sql } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns, oneOf } from '../db/columns.ts';
import { compiledOnce } from '../db/compiled.ts';
import { links } from '../db/links.ts';
import { listWithTotal, type Window } from '../db/list.ts';
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

const POLICY_SETS = columns<PolicySetsTable, PolicySet>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  description: 'description',
  kind: oneOf('kind', ['sentinel', 'opa'], 'sentinel'),
  global: bool('global'),
  overridable: bool('overridable'),
  agentEnabled: bool('agent_enabled'),
  policyToolVersion: 'policy_tool_version',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});
const changes = POLICY_SETS.patch('name', 'description', 'global', 'overridable', 'agentEnabled', 'policyToolVersion', 'updatedAt');

export async function insertPolicySet(q: Queryable, s: PolicySet): Promise<void> {
  await q.insertInto('policy_sets').values(POLICY_SETS.write(s)).execute();
}

/** Every request on a set, its parameters and versions starts here: compiled once (db/compiled.ts). */
const policySetById = compiledOnce((q: Queryable, id: string) => q.selectFrom('policy_sets').selectAll().where('id', '=', id));

export async function findPolicySetById(q: Queryable, id: string): Promise<PolicySet | undefined> {
  const [r] = await policySetById(q, id);
  return r && POLICY_SETS.read(r);
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
  return r && POLICY_SETS.read(r);
}

export interface PolicySetFilter {
  organizationId: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  kind?: PolicyKind;
}

export async function listPolicySets(q: Queryable, f: PolicySetFilter, page: Window) {
  let base = q.selectFrom('policy_sets').where('organization_id', '=', f.organizationId);
  if (f.kind) base = base.where('kind', '=', f.kind);
  if (f.search) base = base.where(containsInsensitive('name', f.search));
  // lower(name) is what the (organization_id, lower(name)) index holds, so it serves the sort too.
  return listWithTotal(
    base,
    base
      .selectAll()
      .orderBy(sql`lower(name)`)
      .orderBy('id'),
    page,
    POLICY_SETS.read,
  );
}

export type PolicySetPatch = Partial<Pick<PolicySet, 'name' | 'description' | 'global' | 'overridable' | 'agentEnabled' | 'policyToolVersion'>> & {
  updatedAt: string;
};

export async function updatePolicySet(q: Queryable, id: string, p: PolicySetPatch): Promise<void> {
  await q.updateTable('policy_sets').set(changes(p)).where('id', '=', id).execute();
}

export async function touchPolicySet(q: Queryable, id: string, updatedAt: string): Promise<void> {
  await q.updateTable('policy_sets').set({ updated_at: updatedAt }).where('id', '=', id).execute();
}

export async function deletePolicySet(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('policy_sets').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The projects and the workspaces a policy set is attached to, and the workspaces it never applies to. */
export const attachedProjects = links('policy_set_projects', { from: 'policy_set_id', to: 'project_id' });
export const attachedWorkspaces = links('policy_set_workspaces', { from: 'policy_set_id', to: 'workspace_id' });
export const excludedWorkspaces = links('policy_set_workspace_exclusions', { from: 'policy_set_id', to: 'workspace_id' });
/** The policies a policy set holds (sets whose policies come from versions hold none here). */
export const heldPolicies = links('policy_set_policies', { from: 'policy_set_id', to: 'policy_id' });

/** policy id → the sets holding it, oldest link first (one query, by the policy_id index). */
export async function setsHoldingPolicies(q: Queryable, policyIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(policyIds.map((id) => [id, []]));
  if (policyIds.length === 0) return result;
  const rows = await q
    .selectFrom('policy_set_policies')
    .select(['policy_id', 'policy_set_id'])
    .where('policy_id', 'in', [...new Set(policyIds)])
    .orderBy('created_at')
    .orderBy('policy_set_id')
    .execute();
  for (const r of rows) result.get(r.policy_id)?.push(r.policy_set_id);
  return result;
}

/**
 * The Sentinel sets that apply to a workspace, oldest first: global ones, and those attached to
 * it or to its project, minus those that exclude it. One query.
 */
export async function sentinelSetsApplyingTo(q: Queryable, w: { organizationId: string; projectId: string; id: string }): Promise<PolicySet[]> {
  const rows = await q
    .selectFrom('policy_sets as s')
    .selectAll('s')
    .where('s.organization_id', '=', w.organizationId)
    .where('s.kind', '=', 'sentinel')
    .where((eb) =>
      eb.or([
        eb('s.global', '=', true),
        eb.exists(
          eb
            .selectFrom('policy_set_workspaces as pw')
            .select(sql`1`.as('x'))
            .whereRef('pw.policy_set_id', '=', 's.id')
            .where('pw.workspace_id', '=', w.id),
        ),
        eb.exists(
          eb
            .selectFrom('policy_set_projects as pp')
            .select(sql`1`.as('x'))
            .whereRef('pp.policy_set_id', '=', 's.id')
            .where('pp.project_id', '=', w.projectId),
        ),
      ]),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('policy_set_workspace_exclusions as pe')
            .select(sql`1`.as('x'))
            .whereRef('pe.policy_set_id', '=', 's.id')
            .where('pe.workspace_id', '=', w.id),
        ),
      ),
    )
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
  return rows.map((r) => POLICY_SETS.read(r as any));
}
