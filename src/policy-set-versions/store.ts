import { sql } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { columns, typed } from '../db/columns.ts';
import type { PolicySetVersionsTable } from '../db/schema.ts';

export type VersionStatus = 'pending' | 'ready' | 'errored';

/** A version without its archive or manifest (shows never load them). */
export interface PolicySetVersion {
  id: string;
  policySetId: string;
  status: VersionStatus;
  source: string;
  error: string | null;
  policyCount: number;
  createdAt: string;
  updatedAt: string;
  readyAt: string | null;
  erroredAt: string | null;
}

const VERSIONS = columns<PolicySetVersionsTable, PolicySetVersion>({
  id: 'id',
  policySetId: 'policy_set_id',
  status: typed<VersionStatus>()('status'),
  source: 'source',
  error: 'error',
  policyCount: 'policy_count',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  readyAt: 'ready_at',
  erroredAt: 'errored_at',
});

/** A set's newest version, its current (newest ready) one, and how many policies that one declares. */
export interface VersionPointers {
  newest: string | null;
  current: string | null;
  policyCount: number;
}

const LISTED = ['id', 'policy_set_id', 'status', 'source', 'error', 'policy_count', 'created_at', 'updated_at', 'ready_at', 'errored_at'] as const;
const read = (r: object): PolicySetVersion => VERSIONS.read(r as never);

export async function insertVersion(q: Queryable, v: PolicySetVersion): Promise<void> {
  await q
    .insertInto('policy_set_versions')
    .values({ ...VERSIONS.write(v), manifest: null })
    .execute();
}

export async function findVersion(q: Queryable, id: string): Promise<PolicySetVersion | undefined> {
  const r = await q.selectFrom('policy_set_versions').select(LISTED).where('id', '=', id).executeTakeFirst();
  return r && read(r);
}

export async function findVersions(q: Queryable, ids: readonly string[]): Promise<PolicySetVersion[]> {
  if (ids.length === 0) return [];
  return (
    await q
      .selectFrom('policy_set_versions')
      .select(LISTED)
      .where('id', 'in', [...new Set(ids)])
      .execute()
  ).map(read);
}

/**
 * Settles a pending version: ready with what its archive declared, or errored with why. The
 * status test and the write are one statement, so of two uploads racing only one settles it.
 * Returns whether this one did.
 */
export async function settle(
  q: Queryable,
  id: string,
  outcome: { status: 'ready'; manifest: string; policyCount: number } | { status: 'errored'; error: string },
  at: string,
): Promise<boolean> {
  const values =
    outcome.status === 'ready'
      ? { status: 'ready', manifest: outcome.manifest, policy_count: outcome.policyCount, ready_at: at, updated_at: at }
      : { status: 'errored', error: outcome.error, errored_at: at, updated_at: at };
  const r = await q.updateTable('policy_set_versions').set(values).where('id', '=', id).where('status', '=', 'pending').executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Each set's newest version and its newest ready one (its current version), in one statement
 * that reads only this table, through its (policy_set_id, seq) and (policy_set_id, status, seq)
 * indexes.
 */
export async function newestAndCurrent(q: Queryable, setIds: readonly string[]): Promise<Map<string, VersionPointers>> {
  const result = new Map<string, VersionPointers>(setIds.map((id) => [id, { newest: null, current: null, policyCount: 0 }]));
  if (setIds.length === 0) return result;
  const ids = [...new Set(setIds)];
  const newestSeqs = q
    .selectFrom('policy_set_versions')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('policy_set_id', 'in', ids)
    .groupBy('policy_set_id');
  const readySeqs = newestSeqs.where('status', '=', 'ready');
  const pick = (which: 'newest' | 'current', seqs: typeof newestSeqs) =>
    q
      .selectFrom('policy_set_versions')
      .select(['policy_set_id', 'id', 'policy_count', sql<string>`${which}`.as('which')])
      .where('policy_set_id', 'in', ids)
      .where('seq', 'in', seqs);
  const rows = await pick('newest', newestSeqs).unionAll(pick('current', readySeqs)).execute();
  for (const r of rows) {
    const pointers = result.get(r.policy_set_id)!;
    if (r.which === 'newest') pointers.newest = r.id;
    else {
      pointers.current = r.id;
      pointers.policyCount = Number(r.policy_count);
    }
  }
  return result;
}

/** The declared contents of a ready version (JSON, see manifest.ts). */
export async function readManifestText(q: Queryable, id: string): Promise<string | null> {
  const r = await q.selectFrom('policy_set_versions').select('manifest').where('id', '=', id).executeTakeFirst();
  return r?.manifest ?? null;
}
