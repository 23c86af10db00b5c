import type { Queryable } from '../db/index.ts';
import { bool, columns, typed } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { ConfigurationVersionsTable } from '../db/schema.ts';

export type ConfigurationStatus = 'pending' | 'uploaded' | 'errored' | 'archived';

/** A configuration version without its archive (lists and shows never load the bytes). */
export interface ConfigurationVersion {
  id: string;
  workspaceId: string;
  status: ConfigurationStatus;
  source: string;
  autoQueueRuns: boolean;
  speculative: boolean;
  provisional: boolean;
  archiveSize: number | null;
  createdAt: string;
  uploadedAt: string | null;
  archivedAt: string | null;
}

const CONFIGURATION_VERSIONS = columns<ConfigurationVersionsTable, ConfigurationVersion>({
  id: 'id',
  workspaceId: 'workspace_id',
  status: typed<ConfigurationStatus>()('status'),
  source: 'source',
  autoQueueRuns: bool('auto_queue_runs'),
  speculative: bool('speculative'),
  provisional: bool('provisional'),
  archiveSize: 'archive_size',
  createdAt: 'created_at',
  uploadedAt: 'uploaded_at',
  archivedAt: 'archived_at',
});

/** Every column but the archive. */
const LISTED = [
  'id',
  'workspace_id',
  'status',
  'source',
  'auto_queue_runs',
  'speculative',
  'provisional',
  'archive_size',
  'created_at',
  'uploaded_at',
  'archived_at',
] as const;

export async function insertConfigurationVersion(q: Queryable, cv: ConfigurationVersion): Promise<void> {
  await q
    .insertInto('configuration_versions')
    .values({ ...CONFIGURATION_VERSIONS.write(cv), archive: null })
    .execute();
}

export async function findConfigurationVersion(q: Queryable, id: string): Promise<ConfigurationVersion | undefined> {
  const r = await q.selectFrom('configuration_versions').select(LISTED).where('id', '=', id).executeTakeFirst();
  return r && CONFIGURATION_VERSIONS.read(r as never);
}

/**
 * Stores the archive of a version that is pending or uploaded: a later upload replaces an
 * earlier one (the caller has checked that the upload URL is still valid). The status test and
 * the write are one statement; of two uploads racing, the later write wins. Returns whether the
 * version took it (not when it is gone, or in a status that takes no bytes).
 */
export async function storeUpload(q: Queryable, id: string, size: number, at: string): Promise<boolean> {
  const r = await q
    .updateTable('configuration_versions')
    // The bytes are in the blob store; the column is the empty marker its check constraint wants.
    .set({ status: 'uploaded', archive: new Uint8Array(0), archive_size: size, uploaded_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'uploaded'])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function latestUploaded(q: Queryable, workspaceId: string): Promise<ConfigurationVersion | undefined> {
  const r = await q
    .selectFrom('configuration_versions')
    .select(LISTED)
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'uploaded')
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  return r && CONFIGURATION_VERSIONS.read(r as never);
}

/** A workspace's configuration versions, newest first. */
export async function listConfigurationVersions(q: Queryable, workspaceId: string, page: Window) {
  const base = q.selectFrom('configuration_versions').where('workspace_id', '=', workspaceId);
  return listWithTotal(base, base.select(LISTED).orderBy('seq', 'desc'), page, (r) => CONFIGURATION_VERSIONS.read(r as never));
}

/**
 * Archives an uploaded version that is not its workspace's current one (the caller drops its archive).
 * The test and the write are one statement. Returns whether it was archived.
 */
export async function archiveVersion(q: Queryable, id: string, at: string): Promise<boolean> {
  const r = await q
    .updateTable('configuration_versions')
    .set({ status: 'archived', archive: null, archived_at: at })
    .where('id', '=', id)
    .where('status', '=', 'uploaded')
    .where((eb) =>
      eb(
        'id',
        '!=',
        // A workspace with no current version (only provisional ones) has nothing to protect.
        eb.fn.coalesce(
          eb
            .selectFrom('configuration_versions as newest')
            .select('newest.id')
            .whereRef('newest.workspace_id', '=', 'configuration_versions.workspace_id')
            .where('newest.provisional', '=', false)
            .orderBy('newest.seq', 'desc')
            .limit(1),
          eb.val(''),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
