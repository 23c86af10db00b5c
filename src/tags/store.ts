// Tag bindings of workspaces and projects, and the ids of the keys the flat tag API names. The
// two binding tables have the same shape; `Owner` says which one a call works on.
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Queryable } from '../db/index.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import { containsInsensitive } from '../db/sql.ts';
import type { Schema } from '../db/schema.ts';

export type Owner = 'workspace' | 'project';

export interface Binding {
  id: string;
  key: string;
  /** "" for a key-only tag. */
  value: string;
  createdAt: string;
}

export interface FlatTag {
  id: string;
  name: string;
}

const TABLE = { workspace: 'workspace_tag_bindings', project: 'project_tag_bindings' } as const;
const OWNER_COLUMN = { workspace: 'workspace_id', project: 'project_id' } as const;

// The two tables differ only in the owner column's name, which Kysely's types cannot follow
// through a variable; the queries below are the same for both.
const loose = (q: Queryable) => q as unknown as Kysely<any>;

/** owner id → its bindings in arrival order, for every listed owner (one query). */
export async function bindingsOf(q: Queryable, owner: Owner, ownerIds: readonly string[]): Promise<Map<string, Binding[]>> {
  const result = new Map<string, Binding[]>(ownerIds.map((id) => [id, []]));
  if (ownerIds.length === 0) return result;
  const column = OWNER_COLUMN[owner];
  const rows: Array<{ owner: string; id: string; key: string; value: string; created_at: string }> = await loose(q)
    .selectFrom(TABLE[owner])
    .select([`${column} as owner`, 'id', 'key', 'value', 'created_at'])
    .where(column, 'in', [...new Set(ownerIds)])
    .orderBy(column)
    .orderBy('position')
    .execute();
  for (const r of rows) result.get(r.owner)?.push({ id: r.id, key: r.key, value: r.value, createdAt: r.created_at });
  return result;
}

/** Makes `bindings`, in this order, the owner's whole set (two statements, for at most a few rows). */
export async function writeBindings(q: Queryable, owner: Owner, ownerId: string, bindings: readonly Binding[]): Promise<void> {
  const column = OWNER_COLUMN[owner];
  await loose(q).deleteFrom(TABLE[owner]).where(column, '=', ownerId).execute();
  if (bindings.length === 0) return;
  await loose(q)
    .insertInto(TABLE[owner])
    .values(bindings.map((b, position) => ({ id: b.id, [column]: ownerId, key: b.key, value: b.value, position, created_at: b.createdAt })))
    .execute();
}

/** Gives each name an id in the organization, keeping the ids names already have (one statement). */
export async function ensureTags(q: Queryable, organizationId: string, tags: readonly { id: string; name: string }[], createdAt: string): Promise<void> {
  if (tags.length === 0) return;
  await q
    .insertInto('tags')
    .values(tags.map((t) => ({ id: t.id, organization_id: organizationId, name: t.name, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['organization_id', 'name']).doNothing())
    .execute();
}

/** The organization's tags among `ids` (one query). */
export async function tagsByIds(q: Queryable, organizationId: string, ids: readonly string[]): Promise<FlatTag[]> {
  if (ids.length === 0) return [];
  return q
    .selectFrom('tags')
    .select(['id', 'name'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

/** The keys of a workspace as flat tags, in arrival order, optionally those whose name contains `search`. */
export async function listWorkspaceTags(q: Queryable, f: { workspaceId: string; organizationId: string; search?: string }, page: Window) {
  let base = q
    .selectFrom('workspace_tag_bindings as b')
    .innerJoin('tags as t', (j) => j.onRef('t.name', '=', 'b.key').on('t.organization_id', '=', f.organizationId))
    .where('b.workspace_id', '=', f.workspaceId);
  if (f.search) base = base.where(containsInsensitive('b.key', f.search));
  return listWithTotal(base, base.select(['t.id as id', 't.name as name']).orderBy('b.position'), page, (r: FlatTag) => r);
}

/** A tag of an organization as its tag list shows it. */
export interface OrganizationTag extends FlatTag {
  createdAt: string;
  /** How many of the organization's workspaces carry the key (with any value). */
  instanceCount: number;
}

/** The tag with this id, and whose organization it is. */
export async function findTagById(q: Queryable, id: string): Promise<(FlatTag & { organizationId: string }) | undefined> {
  return q.selectFrom('tags').select(['id', 'name', 'organization_id as organizationId']).where('id', '=', id).executeTakeFirst();
}

/**
 * A page of the organization's tags by name, each with its count of workspaces (a correlated
 * count over the page's rows, served by the key index), and their total: two queries.
 * `excludeWorkspaceId` (a workspace of the organization) leaves out the keys it binds itself.
 */
export async function listOrganizationTags(q: Queryable, f: { organizationId: string; search?: string; excludeWorkspaceId?: string }, page: Window) {
  let base = q.selectFrom('tags as t').where('t.organization_id', '=', f.organizationId);
  if (f.search) base = base.where(containsInsensitive('t.name', f.search));
  const excluded = f.excludeWorkspaceId;
  if (excluded) {
    base = base.where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('workspace_tag_bindings as own').select('own.key').where('own.workspace_id', '=', excluded).whereRef('own.key', '=', 't.name')),
      ),
    );
  }
  const rows = base
    .select((eb) => [
      't.id as id',
      't.name as name',
      't.created_at as created_at',
      eb
        .selectFrom('workspace_tag_bindings as b')
        .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
        .select((c) => c.fn.countAll<number | string>().as('n'))
        .whereRef('b.key', '=', 't.name')
        .whereRef('w.organization_id', '=', 't.organization_id')
        .as('instance_count'),
    ])
    .orderBy('t.name')
    .orderBy('t.id');
  return listWithTotal(base, rows, page, (r): OrganizationTag => ({
    id: r.id,
    name: r.name,
    createdAt: r.created_at,
    instanceCount: Number(r.instance_count ?? 0),
  }));
}

/** The organization's workspaces whose own bindings hold any of `keys` (one query). */
export async function workspacesHolding(q: Queryable, organizationId: string, keys: readonly string[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await q
    .selectFrom('workspace_tag_bindings as b')
    .innerJoin('workspaces as w', 'w.id', 'b.workspace_id')
    .select('b.workspace_id')
    .distinct()
    .where('w.organization_id', '=', organizationId)
    .where('b.key', 'in', [...new Set(keys)])
    .orderBy('b.workspace_id')
    .execute();
  return rows.map((r) => r.workspace_id);
}

/** Forgets the organization's tags among `ids` (their names get new ids if used again). */
export async function deleteTags(q: Queryable, organizationId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await q
    .deleteFrom('tags')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

export interface TagMatch {
  key: string;
  /** Absent: any value (a key-only filter). */
  value?: string;
}

type WorkspaceEb = ExpressionBuilder<Schema, 'workspaces'>;

/**
 * SQL: the workspace's effective bindings (its own, and its project's for keys it does not bind
 * itself) hold `m`.
 */
function workspaceHolds(eb: WorkspaceEb, m: TagMatch): Expression<SqlBool> {
  const own = (withValue: boolean) => {
    let s = eb.selectFrom('workspace_tag_bindings as wtb').select('wtb.key').whereRef('wtb.workspace_id', '=', 'workspaces.id').where('wtb.key', '=', m.key);
    if (withValue && m.value !== undefined) s = s.where('wtb.value', '=', m.value);
    return s;
  };
  let inherited = eb
    .selectFrom('project_tag_bindings as ptb')
    .select('ptb.key')
    .whereRef('ptb.project_id', '=', 'workspaces.project_id')
    .where('ptb.key', '=', m.key);
  if (m.value !== undefined) inherited = inherited.where('ptb.value', '=', m.value);
  const fromProject = m.value === undefined ? eb.exists(inherited) : eb.and([eb.exists(inherited), eb.not(eb.exists(own(false)))]);
  return eb.or([eb.exists(own(true)), fromProject]);
}

export interface WorkspaceTagFilter {
  /** Every one must hold (`filter[tagged]`, `search[tags]`). */
  all: readonly TagMatch[];
  /** None may hold (`search[exclude-tags]`). */
  none: readonly TagMatch[];
}

export function workspaceTagFilter(f: WorkspaceTagFilter): RowFilter<'workspaces'> {
  if (f.all.length === 0 && f.none.length === 0) return null;
  return (eb) => eb.and([...f.all.map((m) => workspaceHolds(eb, m)), ...f.none.map((m) => eb.not(workspaceHolds(eb, m)))]);
}

export function projectTagFilter(all: readonly TagMatch[]): RowFilter<'projects'> {
  if (all.length === 0) return null;
  // One subquery whatever the number of tags: the projects holding a binding that matches each
  // of them. One EXISTS per tag, ANDed, made PostgreSQL plan a join of every one of them (100
  // tags took 14 s to plan); here each tag is one term of one aggregate.
  return (eb) => {
    type Bindings = ExpressionBuilder<Schema & { ptb: Schema['project_tag_bindings'] }, 'projects' | 'ptb'>;
    const matches = (b: Bindings, m: TagMatch) =>
      m.value === undefined ? b('ptb.key', '=', m.key) : b.and([b('ptb.key', '=', m.key), b('ptb.value', '=', m.value)]);
    return eb(
      'projects.id',
      'in',
      eb
        .selectFrom('project_tag_bindings as ptb')
        .select('ptb.project_id')
        .where((w) => w.or(all.map((m) => matches(w, m))))
        .groupBy('ptb.project_id')
        .having((h) => h.and(all.map((m) => h(h.fn.max(h.case().when(matches(h, m)).then(1).else(0).end()), '=', 1)))),
    );
  };
}
