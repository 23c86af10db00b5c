import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columnNames, columns, pickColumns, typed, type ColumnMap } from '../db/columns.ts';
import { countedPages } from '../db/counted-page.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { StateVersionOutputsTable, StateVersionStatus, StateVersionsTable } from '../db/schema.ts';
import { commaJoinedBy, supportsRowLocks } from '../db/sql.ts';

export type { StateVersionStatus };

export interface StateVersion {
  id: string;
  workspaceId: string;
  serial: number;
  lineage: string | null;
  md5: string;
  status: StateVersionStatus;
  position: number | null;
  stateSize: number | null;
  stateFormatVersion: number | null;
  terraformVersion: string | null;
  /** JSON text, derived from the state. */
  resources: string | null;
  /** The sum of `resources`' counts (null with them). */
  resourceCount: number | null;
  providers: string | null;
  modules: string | null;
  billableRumCount: number | null;
  jsonStateUploaded: boolean;
  /** Whether the create said `force`: the upload of a pending version honours it. */
  force: boolean;
  /** The lock its creator held, which finalizing it needs (null before migration 0022). */
  lockHolderType: string | null;
  lockHolderId: string | null;
  lockLockedAt: string | null;
  /** The token that created it: finalizing needs it still able to write the state. */
  createdByToken: string | null;
  createdBy: string | null;
  runId: string | null;
  createdAt: string;
  finalizedAt: string | null;
}

const VERSION_COLUMNS: ColumnMap<StateVersionsTable, StateVersion> = {
  id: 'id',
  workspaceId: 'workspace_id',
  serial: { column: 'serial', read: Number },
  lineage: 'lineage',
  md5: 'md5',
  status: typed<StateVersionStatus>()('status'),
  position: 'position',
  stateSize: 'state_size',
  stateFormatVersion: 'state_format_version',
  terraformVersion: 'terraform_version',
  resources: 'resources',
  resourceCount: 'resource_count',
  providers: 'providers',
  modules: 'modules',
  billableRumCount: 'billable_rum_count',
  jsonStateUploaded: bool('json_state_uploaded'),
  force: bool('force'),
  lockHolderType: 'lock_holder_type',
  lockHolderId: 'lock_holder_id',
  lockLockedAt: 'lock_locked_at',
  createdByToken: 'created_by_token',
  createdBy: 'created_by',
  runId: 'run_id',
  createdAt: 'created_at',
  finalizedAt: 'finalized_at',
};
const VERSIONS = columns(VERSION_COLUMNS);
/**
 * What a version's reads select: every column a `StateVersion` holds, and not its resource
 * instances (a list as long as the state has instances), which only the resources list reads.
 */
const VERSION_COLUMN_NAMES = columnNames(VERSION_COLUMNS);
const readVersion = (r: Pick<Selectable<StateVersionsTable>, (typeof VERSION_COLUMN_NAMES)[number]>) => VERSIONS.read(r as Selectable<StateVersionsTable>);

export interface StateOutput {
  id: string;
  stateVersionId: string;
  position: number;
  name: string;
  sensitive: boolean;
  type: string;
  detailedType: string | null;
  sealedValue: string;
}

const OUTPUTS = columns<StateVersionOutputsTable, StateOutput>({
  id: 'id',
  stateVersionId: 'state_version_id',
  position: 'position',
  name: 'name',
  sensitive: bool('sensitive'),
  type: 'type',
  detailedType: 'detailed_type',
  sealedValue: 'sealed_value',
});

export async function insertVersion(q: Queryable, v: StateVersion): Promise<void> {
  await q.insertInto('state_versions').values(VERSIONS.write(v)).execute();
}

export type Finalization = Pick<
  StateVersion,
  | 'position'
  | 'stateSize'
  | 'stateFormatVersion'
  | 'terraformVersion'
  | 'resources'
  | 'resourceCount'
  | 'providers'
  | 'modules'
  | 'billableRumCount'
  | 'finalizedAt'
  | 'lineage'
> & {
  /** JSON text: the version's resource instances (resource-instances.ts). */
  resourceInstances: string;
};
const finalization = VERSIONS.patch(
  'position',
  'stateSize',
  'stateFormatVersion',
  'terraformVersion',
  'resources',
  'resourceCount',
  'providers',
  'modules',
  'billableRumCount',
  'finalizedAt',
  'lineage',
);

/** Pending → finalized, only if it still is pending (how many rows changed: 0 or 1). */
export async function finalize(q: Queryable, id: string, f: Finalization): Promise<number> {
  const r = await q
    .updateTable('state_versions')
    .set({ ...finalization(f), resource_instances: f.resourceInstances, status: 'finalized' })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function markJsonStateUploaded(q: Queryable, id: string): Promise<void> {
  await q.updateTable('state_versions').set({ json_state_uploaded: true }).where('id', '=', id).execute();
}

export async function findVersion(q: Queryable, id: string, forUpdate = false): Promise<StateVersion | undefined> {
  let query = q.selectFrom('state_versions').select(VERSION_COLUMN_NAMES).where('id', '=', id);
  if (forUpdate && supportsRowLocks(q)) query = query.forUpdate();
  const r = await query.executeTakeFirst();
  return r && readVersion(r);
}

/** The current state version of a workspace: the last to become final. */
export async function currentVersion(q: Queryable, workspaceId: string): Promise<StateVersion | undefined> {
  const r = await q
    .selectFrom('state_versions')
    .select(VERSION_COLUMN_NAMES)
    .where('workspace_id', '=', workspaceId)
    .where('position', 'is not', null)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r && readVersion(r);
}

/** The current version's resource instances as stored (null: a version stored before migration 0038), in one query. */
export async function currentResourceInstances(
  q: Queryable,
  workspaceId: string,
): Promise<{ id: string; createdAt: string; finalizedAt: string | null; resourceInstances: string | null } | undefined> {
  const r = await q
    .selectFrom('state_versions')
    .select(['id', 'created_at', 'finalized_at', 'resource_instances'])
    .where('workspace_id', '=', workspaceId)
    .where('position', 'is not', null)
    .orderBy('position', 'desc')
    .limit(1)
    .executeTakeFirst();
  return r && { id: r.id, createdAt: r.created_at, finalizedAt: r.finalized_at, resourceInstances: r.resource_instances };
}

/** The current versions of several workspaces (one query), by workspace id. */
export async function currentVersions(q: Queryable, workspaceIds: readonly string[]): Promise<Map<string, StateVersion>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('state_versions as sv')
    .select(VERSION_COLUMN_NAMES.map((c) => `sv.${c}` as const))
    .where('sv.workspace_id', 'in', [...workspaceIds])
    .where((eb) =>
      eb(
        'sv.position',
        '=',
        eb
          .selectFrom('state_versions as latest')
          .select((l) => l.fn.max('latest.position').as('p'))
          .whereRef('latest.workspace_id', '=', 'sv.workspace_id'),
      ),
    )
    .execute();
  return new Map(rows.map((r) => [r.workspace_id, readVersion(r)]));
}

export async function nextPosition(q: Queryable, workspaceId: string): Promise<number> {
  const r = await q
    .selectFrom('state_versions')
    .select(sql<number | null>`max(position)`.as('p'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return Number(r?.p ?? 0) + 1;
}

/** What a listed version shows (serialize.ts): a version without its bookkeeping (lock, creator's token, md5). */
const LISTED_FIELDS = [
  'id',
  'workspaceId',
  'serial',
  'status',
  'stateSize',
  'stateFormatVersion',
  'terraformVersion',
  'resources',
  'providers',
  'modules',
  'billableRumCount',
  'jsonStateUploaded',
  'createdBy',
  'createdAt',
] as const;
export type ListedVersion = Pick<StateVersion, (typeof LISTED_FIELDS)[number]>;
const LISTED_MAP = pickColumns(VERSION_COLUMNS, LISTED_FIELDS);
const LISTED = columns(LISTED_MAP);
const LISTED_COLUMNS = columnNames(LISTED_MAP);

/** A page's row: the listed columns only (typed as the whole row, which `LISTED` reads no more of). */
type ListedRow = Selectable<StateVersionsTable> & { output_ids: string | null };
const versionPages = countedPages<ListedRow>();

/**
 * Newest first, in one statement: each version with its outputs' ids (in their order) and the
 * workspace's number of versions beside it. Only a page past the end, which has no row to carry
 * the count, takes a second statement. A page asked for again is not built or compiled again.
 */
export async function listVersions(
  q: Queryable,
  workspaceId: string,
  page: Window,
): Promise<{ items: Array<{ version: ListedVersion; outputIds: string[] }>; total: number }> {
  const key = JSON.stringify([workspaceId, page.size, page.offset]);
  const count = () =>
    q
      .selectFrom('state_versions')
      .select((c) => c.fn.countAll<number>().as('n'))
      .where('state_versions.workspace_id', '=', workspaceId);
  const { rows, total } = await versionPages(q, key, {
    page: () =>
      q
        .selectFrom('state_versions as sv')
        .select(LISTED_COLUMNS.map((c) => `sv.${c}` as const))
        .select((eb) => [
          eb
            .selectFrom('state_version_outputs as o')
            .select(commaJoinedBy(q, 'o.id', 'o.position').as('ids'))
            .whereRef('o.state_version_id', '=', 'sv.id')
            .as('output_ids'),
          count().as('total_count'),
        ])
        .where('sv.workspace_id', '=', workspaceId)
        .orderBy('sv.seq', 'desc')
        .limit(page.size)
        .offset(page.offset),
    total: () => q.selectNoFrom(count().as('total_count')),
  });
  return {
    items: rows.map((r) => ({ version: LISTED.read(r as unknown as Selectable<StateVersionsTable>), outputIds: r.output_ids ? r.output_ids.split(',') : [] })),
    total,
  };
}

export async function insertOutputs(q: Queryable, outputs: readonly StateOutput[]): Promise<void> {
  if (outputs.length === 0) return;
  await q.insertInto('state_version_outputs').values(outputs.map(OUTPUTS.write)).execute();
}

export async function findOutput(q: Queryable, id: string): Promise<StateOutput | undefined> {
  const r = await q.selectFrom('state_version_outputs').selectAll().where('id', '=', id).executeTakeFirst();
  return r && OUTPUTS.read(r);
}

/** The outputs of the given versions, in their order (one query). */
export async function outputsOf(q: Queryable, versionIds: readonly string[]): Promise<StateOutput[]> {
  if (versionIds.length === 0) return [];
  const rows = await q
    .selectFrom('state_version_outputs')
    .selectAll()
    .where('state_version_id', 'in', [...versionIds])
    .orderBy('state_version_id')
    .orderBy('position')
    .execute();
  return rows.map(OUTPUTS.read);
}

export async function listOutputs(q: Queryable, versionId: string, page: Window | null) {
  const base = q.selectFrom('state_version_outputs').where('state_version_id', '=', versionId);
  return listWithTotal(base, base.selectAll().orderBy('position'), page, OUTPUTS.read);
}

/** For key rotation: outputs sealed with another key than `prefix` names, after `after` in id order. */
export async function staleOutputs(q: Queryable, prefix: string, after: string, limit: number): Promise<Array<{ id: string; sealedValue: string }>> {
  const rows = await q
    .selectFrom('state_version_outputs')
    .select(['id', 'sealed_value'])
    .where('sealed_value', 'not like', `${prefix}%`)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, sealedValue: r.sealed_value }));
}

export async function replaceOutputValue(q: Queryable, id: string, sealedValue: string): Promise<void> {
  await q.updateTable('state_version_outputs').set({ sealed_value: sealedValue }).where('id', '=', id).execute();
}
