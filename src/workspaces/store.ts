import { sql, type AliasedExpression, type Expression, type ExpressionBuilder, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns, typed, type Converted } from '../db/columns.ts';
import { compiledOnce } from '../db/compiled.ts';
import { countedPages } from '../db/counted-page.ts';
import { filterKey, type RowFilter } from '../db/filter.ts';
import { jsonAll, jsonFirst, jsonOf } from '../db/json.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { Schema, WorkspacesTable } from '../db/schema.ts';
import { containsInsensitive, matchesWildcard, supportsRowLocks } from '../db/sql.ts';

import type { ExecutionMode } from '../values.ts';

export type { ExecutionMode };

/** The settings a create or update may send, with TFE's defaults for a new workspace. */
export interface WorkspaceSettings {
  autoApply: boolean;
  autoApplyRunTrigger: boolean;
  allowDestroyPlan: boolean;
  assessmentsEnabled: boolean;
  fileTriggersEnabled: boolean;
  globalRemoteState: boolean;
  queueAllRuns: boolean;
  speculativeEnabled: boolean;
  structuredRunOutputEnabled: boolean;
  terraformVersion: string;
  workingDirectory: string;
  triggerPrefixes: string[];
  triggerPatterns: string[];
  sourceName: string | null;
  sourceUrl: string | null;
  autoDestroyAt: string | null;
}

export const DEFAULT_SETTINGS: WorkspaceSettings = {
  autoApply: false,
  autoApplyRunTrigger: false,
  allowDestroyPlan: true,
  assessmentsEnabled: false,
  fileTriggersEnabled: true,
  globalRemoteState: false,
  queueAllRuns: false,
  speculativeEnabled: true,
  structuredRunOutputEnabled: true,
  terraformVersion: 'latest',
  workingDirectory: '',
  triggerPrefixes: [],
  triggerPatterns: [],
  sourceName: null,
  sourceUrl: null,
  autoDestroyAt: null,
};

export const SETTINGS = Object.keys(DEFAULT_SETTINGS) as Array<keyof WorkspaceSettings>;

/** The workspace's own execution mode (null: its organization's default) and agent pool. */
export interface OwnExecution {
  executionMode: ExecutionMode | null;
  agentPoolId: string | null;
}

export interface Workspace extends WorkspaceSettings, OwnExecution {
  id: string;
  organizationId: string;
  projectId: string;
  name: string;
  description: string | null;
  /** The workspace's own duration, in effect only when it does not inherit its project's. */
  autoDestroyActivityDuration: string | null;
  inheritsProjectAutoDestroy: boolean;
  /** The organization's SSH key its runs clone modules with (ssh-keys/ assigns it); null: none. */
  sshKeyId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A list of strings kept as JSON text. */
const stringList = <C extends string>(column: C): Converted<C, string[]> => ({
  column,
  read: (stored: string) => JSON.parse(stored) as string[],
  write: (value) => JSON.stringify(value),
});

const WORKSPACES = columns<WorkspacesTable, Workspace>({
  id: 'id',
  organizationId: 'organization_id',
  projectId: 'project_id',
  name: 'name',
  description: 'description',
  autoDestroyActivityDuration: 'auto_destroy_activity_duration',
  inheritsProjectAutoDestroy: bool('inherits_project_auto_destroy'),
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  autoApply: bool('auto_apply'),
  autoApplyRunTrigger: bool('auto_apply_run_trigger'),
  allowDestroyPlan: bool('allow_destroy_plan'),
  assessmentsEnabled: bool('assessments_enabled'),
  fileTriggersEnabled: bool('file_triggers_enabled'),
  globalRemoteState: bool('global_remote_state'),
  queueAllRuns: bool('queue_all_runs'),
  speculativeEnabled: bool('speculative_enabled'),
  structuredRunOutputEnabled: bool('structured_run_output_enabled'),
  terraformVersion: 'terraform_version',
  workingDirectory: 'working_directory',
  triggerPrefixes: stringList('trigger_prefixes'),
  triggerPatterns: stringList('trigger_patterns'),
  sourceName: 'source_name',
  sourceUrl: 'source_url',
  autoDestroyAt: 'auto_destroy_at',
  executionMode: typed<ExecutionMode>()('execution_mode') as Converted<'execution_mode', ExecutionMode | null>,
  agentPoolId: 'agent_pool_id',
  sshKeyId: 'ssh_key_id',
});
const PATCHABLE = [
  'name',
  'description',
  'autoDestroyActivityDuration',
  'inheritsProjectAutoDestroy',
  'executionMode',
  'agentPoolId',
  'sshKeyId',
  ...SETTINGS,
] as const;
const changes = WORKSPACES.patch(...PATCHABLE, 'updatedAt');

export async function insertWorkspace(q: Queryable, w: Workspace): Promise<void> {
  await q.insertInto('workspaces').values(WORKSPACES.write(w)).execute();
}

export async function findWorkspaceById(q: Queryable, id: string): Promise<Workspace | undefined> {
  const r = await q.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
  return r && WORKSPACES.read(r);
}

export async function findWorkspaceByName(q: Queryable, organizationId: string, name: string): Promise<Workspace | undefined> {
  const r = await q
    .selectFrom('workspaces')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return r && WORKSPACES.read(r);
}

/** A workspace with its project's columns (null: no such project, deleted under it), read together. */
export interface WorkspaceWithProject {
  workspace: Workspace;
  project: ProjectColumns | null;
}

// The workspace and its project in one statement: finding a workspace for a caller needs both
// (the caller's rights come from the project), and a second round trip for the project was a
// third of a run or state version list's statements on PostgreSQL.
const withProject = (q: Queryable) =>
  q
    .selectFrom('workspaces')
    .selectAll('workspaces')
    .select(projectRow(supportsRowLocks(q)));
const withProjectById = compiledOnce((q: Queryable, id: string) => withProject(q).where('workspaces.id', '=', id));
const withProjectByName = compiledOnce((q: Queryable, organizationId: string, lowerName: string) =>
  withProject(q)
    .where('workspaces.organization_id', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['workspaces.name']), '=', lowerName)),
);
const readWithProject = (r: Selectable<WorkspacesTable> & { project_row: unknown }): WorkspaceWithProject => ({
  workspace: WORKSPACES.read(r),
  project: projectColumns(r.project_row),
});

export async function findWorkspaceWithProjectById(q: Queryable, id: string): Promise<WorkspaceWithProject | undefined> {
  const [r] = await withProjectById(q, id);
  return r && readWithProject(r);
}

/** By name, in any case, as TFE finds a workspace named in a path. */
export async function findWorkspaceWithProjectByName(q: Queryable, organizationId: string, name: string): Promise<WorkspaceWithProject | undefined> {
  const [r] = await withProjectByName(q, organizationId, name.toLowerCase());
  return r && readWithProject(r);
}

/** Which of `ids` are workspaces of the organization (one query). */
export async function workspaceIdsInOrganization(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q
    .selectFrom('workspaces')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The listed workspaces, locked on PostgreSQL until the transaction ends so that a concurrent
 * move or delete of the same rows waits; locked in id order so two moves cannot deadlock.
 */
export async function lockWorkspaces(q: Queryable, ids: readonly string[]): Promise<Workspace[]> {
  if (ids.length === 0) return [];
  let query = q
    .selectFrom('workspaces')
    .selectAll()
    .where('id', 'in', [...ids])
    .orderBy('id');
  if (supportsRowLocks(q)) query = query.forUpdate();
  return (await query.execute()).map(WORKSPACES.read);
}

export type WorkspacePatch = Partial<Pick<Workspace, (typeof PATCHABLE)[number]>> & {
  updatedAt: string;
};

export async function updateWorkspace(q: Queryable, id: string, patch: WorkspacePatch): Promise<void> {
  await q.updateTable('workspaces').set(changes(patch)).where('id', '=', id).execute();
}

/** One statement however many workspaces move; rows already in the project are left alone. */
export async function moveWorkspaces(q: Queryable, ids: readonly string[], projectId: string, updatedAt: string): Promise<void> {
  if (ids.length === 0) return;
  await q
    .updateTable('workspaces')
    .set({ project_id: projectId, updated_at: updatedAt })
    .where('id', 'in', [...ids])
    .where('project_id', '<>', projectId)
    .execute();
}

export async function deleteWorkspace(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('workspaces').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** project id → number of workspaces in it (one grouped query); absent projects count 0. */
export async function countByProject(q: Queryable, projectIds: readonly string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('workspaces')
    .select((eb) => ['project_id', eb.fn.countAll<number>().as('n')])
    .where('project_id', 'in', [...new Set(projectIds)])
    .groupBy('project_id')
    .execute();
  return new Map(rows.map((r) => [r.project_id, Number(r.n)]));
}

export interface WorkspaceListFilter {
  organizationId: string;
  /** The workspaces the caller may see. */
  visible: RowFilter<'workspaces'>;
  projectId?: string;
  /** Case-insensitive substring of the name. */
  search?: string;
  /** The name, any case, with `*` at either end matching any text there. */
  wildcardName?: string;
  /** Tag filters (the tags domain builds them). */
  tagged?: RowFilter<'workspaces'>;
  /** By the current run (the runs domain builds it). */
  currentRun?: RowFilter<'workspaces'>;
  /** Absent: by name. */
  order?: WorkspaceOrder;
  descending: boolean;
}

/** An expression's `key` names it for a compiled page (db/compiled.ts): the same key, the same SQL. */
export type WorkspaceOrder =
  { by: 'name' } | { by: 'creation' } | { by: 'expression'; key?: string; expression: (eb: ExpressionBuilder<Schema, 'workspaces'>) => Expression<unknown> };

/** Orders a list; an expression's nulls (no current run) come last either way, as TFE lists them. */
function ordered<Q extends SelectQueryBuilder<Schema, 'workspaces', any>>(rows: Q, order: WorkspaceOrder, descending: boolean): Q {
  const direction = descending ? 'desc' : 'asc';
  if (order.by === 'name') return rows.orderBy(sql`lower(name)`, direction).orderBy('seq', direction) as Q;
  if (order.by === 'creation') return rows.orderBy('seq', direction) as Q;
  const e = order.expression;
  return rows
    .orderBy((eb) => eb.case().when(e(eb), 'is', null).then(1).else(0).end())
    .orderBy(e, direction)
    .orderBy('seq', direction) as Q;
}

/**
 * Columns a caller adds beside each listed workspace: correlated subqueries on `workspaces` (what
 * the domains built on workspaces show of each), named by `key` for a compiled page, read by `read`.
 */
export interface Beside<X> {
  key: string;
  select: (eb: ExpressionBuilder<Schema, 'workspaces'>, postgres: boolean) => ReadonlyArray<AliasedExpression<unknown, string>>;
  read: (row: Record<string, unknown>) => X;
}

/** A project's columns as a listed workspace carries them (the projects domain reads them). */
export type ProjectColumns = Record<(typeof PROJECT_COLUMNS)[number], unknown>;
const PROJECT_COLUMNS = ['id', 'organization_id', 'name', 'description', 'auto_destroy_activity_duration', 'is_default', 'created_at'] as const;

/** A workspace's project as `project_row`: its PROJECT_COLUMNS as JSON (projectColumns reads it). */
const projectRow = (postgres: boolean) =>
  jsonFirst(postgres, { table: 'projects', columns: PROJECT_COLUMNS, owner: 'id', outer: 'workspaces.project_id' }).as('project_row');

/** The project's columns from `jsonFirst` of PROJECT_COLUMNS (null when there is no project). */
function projectColumns(row: unknown): ProjectColumns | null {
  const p = jsonOf<unknown[]>(row);
  if (!p) return null;
  const columns = {} as Record<string, unknown>;
  for (let i = 0; i < PROJECT_COLUMNS.length; i++) columns[PROJECT_COLUMNS[i]!] = p[i];
  return columns as ProjectColumns;
}

/** A workspace of a page, with its project's columns, its own tag bindings and what `Beside` added. */
export interface ListedWorkspace<X> {
  workspace: Workspace;
  project: ProjectColumns;
  ownTags: Array<{ id: string; key: string; value: string; createdAt: string }>;
  beside: X | undefined;
}

type PageRow = Selectable<WorkspacesTable> & { project_row: unknown; own_tags: unknown } & Record<string, unknown>;
const workspacePages = countedPages<PageRow>();

/** `projects`: the page's projects read so far, each read once however many of its workspaces the page holds. */
function listed<X>(r: PageRow, beside: Beside<X> | undefined, projects: Map<string, ProjectColumns>): ListedWorkspace<X> {
  let project = projects.get(r.project_id);
  if (!project) projects.set(r.project_id, (project = projectColumns(r.project_row)!));
  const tags = jsonOf<Array<[string, string, string, string]>>(r.own_tags) ?? [];
  return {
    workspace: WORKSPACES.read(r),
    project,
    ownTags: tags.map(([id, key, value, createdAt]) => ({ id, key, value, createdAt })),
    beside: beside?.read(r),
  };
}

/**
 * A page of the organization's workspaces in one statement, whatever its size: the rows, the
 * list's total (an uncorrelated subquery, evaluated once), each workspace's project and own tag
 * bindings, and whatever `beside` adds, as subqueries beside each row. Only a page past the end,
 * which has no row to carry the total, takes a second statement for it. A page asked for again
 * (the same organization, filters, order, window and `beside`) is not built or compiled again.
 */
export async function listWorkspaces<X = undefined>(
  q: Queryable,
  f: WorkspaceListFilter,
  page: Window,
  beside?: Beside<X>,
): Promise<{ items: ListedWorkspace<X>[]; total: number }> {
  const postgres = supportsRowLocks(q);
  const order = f.order ?? { by: 'name' };
  const filters = [filterKey(f.visible), f.tagged ? filterKey(f.tagged) : '-', f.currentRun ? filterKey(f.currentRun) : '-'];
  const orderKey = order.by === 'expression' ? (order.key ?? null) : order.by;
  const key =
    filters.includes(null) || orderKey === null
      ? null
      : JSON.stringify([
          f.organizationId,
          filters,
          f.projectId ?? null,
          f.search ?? null,
          f.wildcardName ?? null,
          orderKey,
          f.descending,
          page.size,
          page.offset,
          beside?.key ?? null,
        ]);
  let base: SelectQueryBuilder<Schema, 'workspaces', {}> | undefined;
  const where = () => {
    if (base) return base;
    base = q.selectFrom('workspaces').where('organization_id', '=', f.organizationId);
    if (f.visible) base = base.where(f.visible);
    if (f.projectId !== undefined) base = base.where('project_id', '=', f.projectId);
    if (f.search) base = base.where(containsInsensitive('name', f.search));
    if (f.wildcardName) base = base.where(matchesWildcard('name', f.wildcardName));
    if (f.tagged) base = base.where(f.tagged);
    if (f.currentRun) base = base.where(f.currentRun);
    return base;
  };
  const count = () => where().select((eb) => eb.fn.countAll<number>().as('n'));
  const { rows, total } = await workspacePages(q, key, {
    page: () =>
      ordered(
        where()
          .selectAll('workspaces')
          .select((eb) => [
            projectRow(postgres),
            jsonAll(postgres, {
              table: 'workspace_tag_bindings',
              columns: ['id', 'key', 'value', 'created_at'],
              owner: 'workspace_id',
              outer: 'workspaces.id',
              order: 'position',
            }).as('own_tags'),
            count().as('total_count'),
            ...(beside ? beside.select(eb, postgres) : []),
          ]),
        order,
        f.descending,
      )
        .limit(page.size)
        .offset(page.offset),
    total: () => q.selectNoFrom(count().as('total_count')),
  });
  const projects = new Map<string, ProjectColumns>();
  return { items: rows.map((r) => listed(r, beside, projects)), total };
}

export interface AdminWorkspaceFilter {
  /** Case-insensitive substring of the name, or the exact id. */
  query?: string;
  /** A filter another domain builds (the runs domain: by the current run's status). */
  where?: RowFilter<'workspaces'>;
  /** An order another domain builds (the runs domain: by the current run's creation); absent: name or creation. */
  order?: WorkspaceOrder;
  descending: boolean;
}

/** One page of every organization's workspaces (the site admin's view). */
export async function listAllWorkspaces(q: Queryable, f: AdminWorkspaceFilter, page: Window) {
  let base = q.selectFrom('workspaces');
  if (f.query) {
    const text = f.query;
    base = base.where((eb) => eb.or([containsInsensitive('name', text), eb('id', '=', text)]));
  }
  if (f.where) base = base.where(f.where);
  return listWithTotal(base, ordered(base.selectAll(), f.order ?? { by: 'creation' }, f.descending), page, WORKSPACES.read);
}

/** The workspaces with these ids (one query), in no particular order. */
export async function findWorkspacesByIds(q: Queryable, ids: readonly string[]): Promise<Workspace[]> {
  if (ids.length === 0) return [];
  return (
    await q
      .selectFrom('workspaces')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute()
  ).map(WORKSPACES.read);
}

/** One page of the workspaces that may read `workspaceId`'s state, of those `visible` lets through, by name. */
export async function listRemoteStateConsumers(q: Queryable, workspaceId: string, visible: RowFilter<'workspaces'>, page: Window) {
  let base = q
    .selectFrom('workspaces')
    .where('id', 'in', (eb) => eb.selectFrom('workspace_remote_state_consumers').select('consumer_id').where('workspace_id', '=', workspaceId));
  if (visible) base = base.where(visible);
  return listWithTotal(
    base,
    base
      .selectAll()
      .orderBy(sql`lower(name)`)
      .orderBy('id'),
    page,
    WORKSPACES.read,
  );
}

/** Adds the pairs not there yet (one statement). */
export async function addRemoteStateConsumers(q: Queryable, workspaceId: string, consumerIds: readonly string[], at: string): Promise<void> {
  if (consumerIds.length === 0) return;
  await q
    .insertInto('workspace_remote_state_consumers')
    .values(consumerIds.map((consumer_id) => ({ workspace_id: workspaceId, consumer_id, created_at: at })))
    .onConflict((oc) => oc.columns(['workspace_id', 'consumer_id']).doNothing())
    .execute();
}

/** Removes the listed consumers, or every one when `consumerIds` is undefined. */
export async function removeRemoteStateConsumers(q: Queryable, workspaceId: string, consumerIds?: readonly string[]): Promise<void> {
  if (consumerIds?.length === 0) return;
  let query = q.deleteFrom('workspace_remote_state_consumers').where('workspace_id', '=', workspaceId);
  if (consumerIds) query = query.where('consumer_id', 'in', [...consumerIds]);
  await query.execute();
}
