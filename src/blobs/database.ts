// Blobs in the `blobs` table (the default backend): one row per part, keyed by (family, owner,
// name, part), so a log read by offset is one range scan of the primary key. Writes join the
// caller's transaction: a state version and its bytes commit together. Rows of a deleted owner go
// with it, in the same statement, through the triggers of migration 0029.
import type { Queryable } from '../db/index.ts';
import type { BlobBackend, BlobCodec, StoredPart } from './backend.ts';
import type { BlobKey } from './keys.ts';

const toBuffer = (b: Uint8Array) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

export function databaseBlobBackend(): BlobBackend {
  const of = (q: Queryable, key: BlobKey) => q.selectFrom('blobs').where('family', '=', key.family).where('owner', '=', key.owner).where('name', '=', key.name);
  const row = (key: BlobKey, p: StoredPart) => ({
    family: key.family,
    owner: key.owner,
    name: key.name,
    part: p.part,
    key_id: p.keyId,
    codec: p.codec,
    body: p.body,
    size: p.size,
    created_at: new Date().toISOString(),
  });
  const read = (r: { part: number | string; size: number | string; key_id: string | null; codec: BlobCodec | null; body: Uint8Array }): StoredPart => ({
    part: Number(r.part),
    size: Number(r.size),
    keyId: r.key_id,
    codec: r.codec,
    body: toBuffer(r.body),
  });

  return {
    kind: 'database',
    async put(q, key, part) {
      await q.deleteFrom('blobs').where('family', '=', key.family).where('owner', '=', key.owner).where('name', '=', key.name).execute();
      await q.insertInto('blobs').values(row(key, part)).execute();
    },
    async add(q, key, part) {
      const r = await q
        .insertInto('blobs')
        .values(row(key, part))
        .onConflict((oc) => oc.columns(['family', 'owner', 'name', 'part']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) === 1;
    },
    async parts(q, key, start, end) {
      // The part holding `start` begins at or before it; the rest begin inside the range. One
      // statement: a log is read 1 MiB at a time, and a second round trip would come with each.
      const holding = of(q, key)
        .select((eb) => eb.fn.max('part').as('part'))
        .where('part', '<=', start);
      const rows = await of(q, key)
        .select(['part', 'size', 'key_id', 'codec', 'body'])
        .where((eb) => eb('part', '>=', eb.fn.coalesce(holding, eb.val(start))))
        .where('part', '<', end)
        .orderBy('part')
        .execute();
      return rows.map(read);
    },
    async end(q, key) {
      const r = await of(q, key).select(['part', 'size']).orderBy('part', 'desc').limit(1).executeTakeFirst();
      return r ? Number(r.part) + Number(r.size) : 0;
    },
    async names(q, family, owner) {
      const rows = await q.selectFrom('blobs').select('name').distinct().where('family', '=', family).where('owner', '=', owner).execute();
      return rows.map((r) => r.name);
    },
    async delete(q, key) {
      await q.deleteFrom('blobs').where('family', '=', key.family).where('owner', '=', key.owner).where('name', '=', key.name).execute();
    },
    async deleteOwners(q, family, owners) {
      if (owners.length === 0) return;
      await q
        .deleteFrom('blobs')
        .where('family', '=', family)
        .where('owner', 'in', [...owners])
        .execute();
    },
    async stale(q, keyId, limit) {
      const rows = await q
        .selectFrom('blobs')
        .select(['family', 'owner', 'name', 'part'])
        .where((eb) => (keyId === null ? eb('key_id', 'is', null) : eb.or([eb('key_id', 'is', null), eb('key_id', '<>', keyId)])))
        .orderBy('family')
        .orderBy('owner')
        .orderBy('name')
        .orderBy('part')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ key: { family: r.family as BlobKey['family'], owner: r.owner, name: r.name }, part: Number(r.part) }));
    },
    async replacePart(q, ref, part) {
      await q
        .updateTable('blobs')
        .set({ key_id: part.keyId, body: part.body })
        .where('family', '=', ref.key.family)
        .where('owner', '=', ref.key.owner)
        .where('name', '=', ref.key.name)
        .where('part', '=', ref.part)
        .execute();
    },
    async keyIds(q) {
      const rows = await q.selectFrom('blobs').select('key_id').distinct().where('key_id', 'is not', null).execute();
      return rows.map((r) => r.key_id!).sort();
    },
  };
}
