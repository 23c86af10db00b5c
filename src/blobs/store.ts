// The one place Hangar keeps bytes: state and JSON state, configuration archives, plan files and
// plan JSON, run and policy check logs, policy set archives. Every part is sealed with the
// keyring (AES-256-GCM, the key id kept beside it) under associated data naming its key and
// offset (keys.ts), whichever backend holds it: the database (default) or HANGAR_BLOB_DIR.
//
// Whole blobs are put and got; logs are appended in parts, each sealed on its own, at their byte
// offsets, so a reader following a running job reads only the parts its range touches. Every part
// is compressed (zstd, its fastest level) before it is sealed whenever that makes it smaller:
// state, plan JSON and plan output pack several times over, which shrinks what the database keeps
// and what a read moves (PostgreSQL sends bytea as hex, two characters a byte) by as much.
// Archives and plan files arrive compressed (gzip, zip) and are not tried again.
import { constants as zlib, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { BlobBackend, BlobCodec, StoredPart } from './backend.ts';
import { databaseBlobBackend } from './database.ts';
import { filesystemBlobBackend } from './filesystem.ts';
import { associatedData, checkKey, type BlobFamily, type BlobKey } from './keys.ts';

export type { BlobFamily, BlobKey };

/** Parts shorter than this are kept as they are: a few lines gain too little from packing. */
const PACK_MIN_BYTES = 512;
// Node marks its zstd functions experimental; the bytes are standard zstd frames whatever becomes
// of the API, and the project pins the Node it runs on (package.json), so a change is seen here.
const ZSTD_FASTEST = { params: { [zlib.ZSTD_c_compressionLevel]: 1 } };
/** The magic numbers of gzip (configuration and policy set archives) and zip (plan files). */
const PACKED_ALREADY = [Buffer.from([0x1f, 0x8b]), Buffer.from([0x50, 0x4b, 0x03, 0x04])];

/** `bytes` compressed when that makes them smaller; as they are otherwise. */
function pack(bytes: Uint8Array): { codec: BlobCodec | null; bytes: Uint8Array } {
  if (bytes.byteLength < PACK_MIN_BYTES) return { codec: null, bytes };
  if (PACKED_ALREADY.some((magic) => magic.every((b, i) => bytes[i] === b))) return { codec: null, bytes };
  const packed = zstdCompressSync(bytes, ZSTD_FASTEST);
  return packed.byteLength < bytes.byteLength ? { codec: 'zstd', bytes: packed } : { codec: null, bytes };
}

/** Node's smallest accepted zlib chunk size. */
const MIN_CHUNK = zlib.Z_MIN_CHUNK;

/** How many times an append retries after another appender took its offset. */
const APPEND_ATTEMPTS = 50;

export function createBlobStore(deps: { database: Database; keyring: Keyring | null; blobDir?: string | null }) {
  const db = deps.database.db;
  const backend: BlobBackend = deps.blobDir ? filesystemBlobBackend(deps.blobDir) : databaseBlobBackend();
  const keyring = () => loadedKeyring(deps.keyring);

  /** Packed bytes sealed as the part at `offset` of `key`, whose plaintext is `size` bytes. */
  function sealed(key: BlobKey, offset: number, packed: ReturnType<typeof pack>, size: number): StoredPart {
    const { keyId, body } = keyring().seal(packed.bytes, associatedData(key, offset));
    return { part: offset, size, keyId, codec: packed.codec, body };
  }

  /** A part's stored plaintext: still compressed when its codec says so. */
  function unseal(key: BlobKey, p: StoredPart): Buffer {
    // Unsealed: an archive an older release kept as it was, not yet sealed by start-up.
    if (p.keyId === null) return p.body;
    return keyring().open(p.keyId, p.body, associatedData(key, p.part));
  }

  /**
   * A part's bytes. The output bound is its recorded size: sealed bytes are ours, but a bound costs
   * nothing. The output buffer is one byte larger than the part (`chunkSize`): Node fills buffers
   * of that size, joins them at the end, and allocates a fresh one whenever one is filled exactly,
   * so its 16 KiB default made a 64 KiB log part cost five allocations and a copy, and an exact
   * size two. A 10 MiB log read opens 160 parts, and collecting that garbage was a third of it.
   */
  function open(key: BlobKey, p: StoredPart): Buffer {
    const bytes = unseal(key, p);
    if (p.codec !== 'zstd') return bytes;
    return zstdDecompressSync(bytes, { maxOutputLength: Math.max(p.size, 1), chunkSize: Math.max(p.size + 1, MIN_CHUNK) });
  }

  const store = {
    backend: backend.kind,

    /** Stores `bytes` as the whole of `key`, replacing what was there; in the caller's transaction on the database backend. */
    async put(key: BlobKey, bytes: Uint8Array, q: Queryable = db): Promise<void> {
      await backend.put(q, checkKey(key), sealed(key, 0, pack(bytes), bytes.byteLength));
    },

    /** Stores `bytes` as `key` unless something is stored there already (false): for single-use uploads. */
    async create(key: BlobKey, bytes: Uint8Array, q: Queryable = db): Promise<boolean> {
      return backend.add(q, checkKey(key), sealed(key, 0, pack(bytes), bytes.byteLength));
    },

    /** The whole of `key`, or undefined when nothing is stored under it. */
    async get(key: BlobKey, q: Queryable = db): Promise<Buffer | undefined> {
      checkKey(key);
      const parts = await backend.parts(q, key, 0, Number.MAX_SAFE_INTEGER);
      if (parts.length === 0) return undefined;
      return Buffer.concat(parts.map((p) => open(key, p)));
    },

    /** The names of an owner's blobs (one query on the database backend). */
    async names(family: BlobFamily, owner: string, q: Queryable = db): Promise<string[]> {
      return (await backend.names(q, family, owner)).sort();
    },

    async delete(key: BlobKey, q: Queryable = db): Promise<void> {
      await backend.delete(q, checkKey(key));
    },

    /** Drops every blob of these owners (the database's triggers do it on the database backend as the rows go). */
    deleteOwners: (family: BlobFamily, owners: readonly string[], q: Queryable = db) => backend.deleteOwners(q, family, owners),

    /**
     * Appends `bytes` to the log at `key`, as one sealed part at the log's end, and returns the new
     * end. Safe for concurrent appenders on one log (each takes the next free offset) and outside
     * any transaction: a log part is never rolled back with something else.
     */
    async append(key: BlobKey, bytes: Uint8Array): Promise<number> {
      checkKey(key);
      const packed = pack(bytes);
      for (let attempt = 0; attempt < APPEND_ATTEMPTS; attempt++) {
        const at = await backend.end(db, key);
        if (await backend.add(db, key, sealed(key, at, packed, bytes.byteLength))) return at + bytes.byteLength;
      }
      throw new Error(`could not append to ${key.family}/${key.owner}/${key.name}: too many concurrent appenders`);
    },

    /** Bytes [start, end) of a log (fewer when it is shorter). */
    async read(key: BlobKey, start: number, end: number, q: Queryable = db): Promise<Buffer> {
      return Buffer.concat(await store.readPieces(key, start, end, q));
    },

    /** `read` as the opened parts' slices, in order: for a caller that frames them and copies once. */
    async readPieces(key: BlobKey, start: number, end: number, q: Queryable = db): Promise<Buffer[]> {
      checkKey(key);
      if (start >= end) return [];
      return (await backend.parts(q, key, start, end)).map((p) => {
        const bytes = open(key, p);
        return bytes.subarray(Math.max(start - p.part, 0), Math.min(end - p.part, bytes.length));
      });
    },

    /** Where a blob ends (a log's length so far); 0 when there is none. */
    async size(key: BlobKey, q: Queryable = db): Promise<number> {
      return backend.end(q, checkKey(key));
    },

    /** Every key id that sealed a stored part: start-up refuses a keyring lacking one. */
    keyIds: (q: Queryable = db) => backend.keyIds(q),

    /**
     * Reseals every part not sealed with the primary key (unsealed archives of older releases
     * included), `batchSize` parts per transaction; returns how many.
     */
    async reseal(options: { batchSize?: number; onlyUnsealed?: boolean } = {}): Promise<number> {
      const ring = keyring();
      const batchSize = options.batchSize ?? 100;
      let count = 0;
      for (;;) {
        const done = await deps.database.transaction(async (trx) => {
          const refs = await backend.stale(trx, options.onlyUnsealed ? null : ring.primaryKeyId, batchSize);
          for (const ref of refs) {
            const [p] = await backend.parts(trx, ref.key, ref.part, ref.part + 1);
            if (!p || p.part !== ref.part) continue;
            const { keyId, body } = ring.seal(unseal(ref.key, p), associatedData(ref.key, ref.part));
            await backend.replacePart(trx, ref, { ...p, keyId, body });
          }
          return refs.length;
        });
        count += done;
        if (done < batchSize) return count;
      }
    },

    /**
     * What `serve` does before it listens: with HANGAR_BLOB_DIR set, moves the blobs the database
     * holds (those of older releases, or of a time without the setting) into the directory; then
     * seals what older releases kept unsealed; then sweeps. Each step finds nothing to do on an
     * ordinary start (one indexed query each).
     */
    async prepare(): Promise<{ moved: number; sealed: number }> {
      let moved = 0;
      if (backend.kind === 'filesystem') {
        for (;;) {
          const rows = await db.selectFrom('blobs').selectAll().orderBy('family').orderBy('owner').orderBy('name').orderBy('part').limit(100).execute();
          if (rows.length === 0) break;
          for (const r of rows) {
            const key = checkKey({ family: r.family as BlobFamily, owner: r.owner, name: r.name });
            const part = { part: Number(r.part), size: Number(r.size), keyId: r.key_id, codec: r.codec, body: Buffer.from(r.body) };
            // Already there: an earlier start moved it and stopped before deleting the row.
            await backend.add(db, key, part);
            await db
              .deleteFrom('blobs')
              .where('family', '=', r.family)
              .where('owner', '=', r.owner)
              .where('name', '=', r.name)
              .where('part', '=', r.part)
              .execute();
            moved++;
          }
        }
      }
      const sealed = await store.reseal({ onlyUnsealed: true });
      await store.sweep();
      return { moved, sealed };
    },

    /**
     * Drops the blobs of owners deleted since the last sweep: the database queues them (migration
     * 0029's triggers) as their rows go, cascades included. The database backend's rows went
     * already, with the owner; the files of the filesystem backend go here.
     */
    async sweep(limit = 500): Promise<number> {
      const queued = await db.selectFrom('blob_deletions').select(['family', 'owner']).limit(limit).execute();
      if (queued.length === 0) return 0;
      const byFamily = new Map<BlobFamily, string[]>();
      for (const r of queued) byFamily.set(r.family as BlobFamily, [...(byFamily.get(r.family as BlobFamily) ?? []), r.owner]);
      for (const [family, owners] of byFamily) {
        await backend.deleteOwners(db, family, owners);
        await db.deleteFrom('blob_deletions').where('family', '=', family).where('owner', 'in', owners).execute();
      }
      return queued.length;
    },
  };
  return store;
}

export type BlobStore = ReturnType<typeof createBlobStore>;
