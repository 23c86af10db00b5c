// Where state bytes live: a small interface, so that an object store can take the place of the
// database later without the state-versions domain changing. What is stored is already sealed
// (crypto/keyring.ts): a store never sees clear state. The database store is the default; its
// writes join the caller's transaction, so a state version and its bytes commit together.
import type { Queryable } from './index.ts';

export interface BlobKey {
  owner: string;
  kind: string;
}

export interface BlobStore {
  /** Stores a new blob; a blob already stored under the key is a unique violation (writes are single-use). */
  put(q: Queryable, key: BlobKey, sealed: string, size: number): Promise<void>;
  get(q: Queryable, key: BlobKey): Promise<string | undefined>;
  /** Which kinds of blob an owner has (one query). */
  kinds(q: Queryable, owner: string): Promise<string[]>;
  /** Replaces a blob's content (key rotation). */
  replace(q: Queryable, key: BlobKey, sealed: string): Promise<void>;
  /** Keys after `after` (in key order) whose content does not start with `prefix`: what rotation must reseal. */
  staleKeys(q: Queryable, prefix: string, after: BlobKey | null, limit: number): Promise<BlobKey[]>;
}

/** Blobs in the `state_version_blobs` table; removed with their state version (foreign key). */
export const databaseBlobStore: BlobStore = {
  async put(q, key, sealed, size) {
    await q
      .insertInto('state_version_blobs')
      .values({ state_version_id: key.owner, kind: key.kind, sealed, size, created_at: new Date().toISOString() })
      .execute();
  },
  async get(q, key) {
    const r = await q
      .selectFrom('state_version_blobs')
      .select('sealed')
      .where('state_version_id', '=', key.owner)
      .where('kind', '=', key.kind)
      .executeTakeFirst();
    return r?.sealed;
  },
  async kinds(q, owner) {
    return (await q.selectFrom('state_version_blobs').select('kind').where('state_version_id', '=', owner).execute()).map((r) => r.kind);
  },
  async replace(q, key, sealed) {
    await q.updateTable('state_version_blobs').set({ sealed }).where('state_version_id', '=', key.owner).where('kind', '=', key.kind).execute();
  },
  async staleKeys(q, prefix, after, limit) {
    let query = q
      .selectFrom('state_version_blobs')
      .select(['state_version_id', 'kind'])
      .where('sealed', 'not like', `${prefix}%`)
      .orderBy('state_version_id')
      .orderBy('kind')
      .limit(limit);
    if (after) {
      query = query.where((eb) =>
        eb.or([eb('state_version_id', '>', after.owner), eb.and([eb('state_version_id', '=', after.owner), eb('kind', '>', after.kind)])]),
      );
    }
    return (await query.execute()).map((r) => ({ owner: r.state_version_id, kind: r.kind }));
  },
};
