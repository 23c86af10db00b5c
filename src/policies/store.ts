import type { Queryable } from '../db/index.ts';
import { columns, oneOf, typed } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { PoliciesTable } from '../db/schema.ts';
import { containsInsensitive } from '../db/sql.ts';

export type PolicyKind = 'sentinel' | 'opa';
/** Sentinel's three levels, and OPA's two (`advisory`, `mandatory`). */
export type EnforcementLevel = 'advisory' | 'soft-mandatory' | 'hard-mandatory' | 'mandatory';

/** A policy without its source (lists and shows never load the bytes). */
export interface Policy {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  kind: PolicyKind;
  query: string | null;
  enforcementLevel: EnforcementLevel;
  /** The file name the client gave in `enforce`; null when it gave none. */
  enforcePath: string | null;
  /** Whether a source has been uploaded (an empty one counts). */
  hasSource: boolean;
  createdAt: string;
  updatedAt: string;
}

const POLICIES = columns<PoliciesTable, Policy>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  description: 'description',
  kind: oneOf('kind', ['sentinel', 'opa'], 'sentinel'),
  query: 'query',
  enforcementLevel: typed<EnforcementLevel>()('enforcement_level'),
  enforcePath: 'enforce_path',
  // Selected by `listed` below, never the bytes themselves.
  hasSource: { computed: (r) => Boolean(r.has_source) },
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});
const changes = POLICIES.patch('description', 'query', 'enforcementLevel', 'updatedAt');

const read = (r: object): Policy => POLICIES.read(r as never);

/** Every column but the source, and whether there is one. */
function listed(q: Queryable) {
  return q
    .selectFrom('policies')
    .select(['id', 'organization_id', 'name', 'description', 'kind', 'query', 'enforcement_level', 'enforce_path', 'created_at', 'updated_at', 'seq'])
    .select((eb) => eb.case().when('source', 'is not', null).then(1).else(0).end().as('has_source'));
}

export async function insertPolicy(q: Queryable, p: Policy): Promise<void> {
  await q
    .insertInto('policies')
    .values({ ...POLICIES.write(p), source: null })
    .execute();
}

export async function findPolicy(q: Queryable, id: string): Promise<Policy | undefined> {
  const r = await listed(q).where('id', '=', id).executeTakeFirst();
  return r && read(r);
}

export interface PolicyFilter {
  organizationId: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  kind?: PolicyKind;
}

/** An organization's policies in creation order. */
export async function listPolicies(q: Queryable, f: PolicyFilter, page: Window) {
  let base = q.selectFrom('policies').where('organization_id', '=', f.organizationId);
  if (f.kind) base = base.where('kind', '=', f.kind);
  if (f.search) base = base.where(containsInsensitive('name', f.search));
  let rows = listed(q).where('organization_id', '=', f.organizationId);
  if (f.kind) rows = rows.where('kind', '=', f.kind);
  if (f.search) rows = rows.where(containsInsensitive('name', f.search));
  return listWithTotal(base, rows.orderBy('seq'), page, (r) => read(r));
}

/** The policies among `ids` that belong to the organization (one query). */
export async function idsInOrganization(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q
    .selectFrom('policies')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Several policies at once, in creation order (a policy set's `included`). */
export async function findPolicies(q: Queryable, ids: readonly string[]): Promise<Policy[]> {
  if (ids.length === 0) return [];
  const rows = await listed(q)
    .where('id', 'in', [...new Set(ids)])
    .orderBy('seq')
    .execute();
  return rows.map((r) => read(r));
}

export type PolicyPatch = Partial<Pick<Policy, 'description' | 'query' | 'enforcementLevel'>> & { updatedAt: string };

export async function updatePolicy(q: Queryable, id: string, p: PolicyPatch): Promise<void> {
  await q.updateTable('policies').set(changes(p)).where('id', '=', id).execute();
}

/** Returns whether the policy was there to take it. */
export async function storeSource(q: Queryable, id: string, source: Uint8Array, at: string): Promise<boolean> {
  const r = await q.updateTable('policies').set({ source, updated_at: at }).where('id', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function readSource(q: Queryable, id: string): Promise<Uint8Array | null | undefined> {
  const r = await q.selectFrom('policies').select('source').where('id', '=', id).executeTakeFirst();
  return r && r.source;
}

/** Sources of several policies at once (for the policy-check runtime). */
export async function readSources(q: Queryable, ids: readonly string[]): Promise<Map<string, Uint8Array | null>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .selectFrom('policies')
    .select(['id', 'source'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, r.source]));
}

export async function deletePolicy(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('policies').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}
