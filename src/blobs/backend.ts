// The two places blob bytes can live behind one interface: the database (default, blobs joining
// the caller's transaction) and a directory (HANGAR_BLOB_DIR). A backend stores what it is given:
// sealing happens above it (store.ts), so neither ever holds clear bytes, except archives kept
// unsealed by older releases (key id null) until the next start-up seals them.
import type { Queryable } from '../db/index.ts';
import type { BlobFamily, BlobKey } from './keys.ts';

/** One sealed part of a blob: a whole blob is part 0; a log is parts at their byte offsets. */
export interface StoredPart {
  part: number;
  /** Plaintext size. */
  size: number;
  /** The key that sealed `body`; null for bytes an older release kept unsealed. */
  keyId: string | null;
  /** How the plaintext was packed before it was sealed; null: as it was. */
  codec: BlobCodec | null;
  body: Buffer;
}

export type BlobCodec = 'zstd';

export interface PartRef {
  key: BlobKey;
  part: number;
}

export interface BlobBackend {
  readonly kind: 'database' | 'filesystem';
  /** Replaces every part of `key` with `part` (at offset 0). */
  put(q: Queryable, key: BlobKey, part: StoredPart): Promise<void>;
  /**
   * Adds `part` at its offset unless a part is there already (false: another writer was first;
   * an appender then takes the next offset). A lost race does not abort the caller's transaction.
   */
  add(q: Queryable, key: BlobKey, part: StoredPart): Promise<boolean>;
  /** The parts overlapping plaintext bytes [start, end), in order. */
  parts(q: Queryable, key: BlobKey, start: number, end: number): Promise<StoredPart[]>;
  /** Where the last part ends (0 for no parts). */
  end(q: Queryable, key: BlobKey): Promise<number>;
  names(q: Queryable, family: BlobFamily, owner: string): Promise<string[]>;
  delete(q: Queryable, key: BlobKey): Promise<void>;
  deleteOwners(q: Queryable, family: BlobFamily, owners: readonly string[]): Promise<void>;
  /** Up to `limit` parts not sealed with `keyId` (unsealed ones included); with null, only unsealed ones. */
  stale(q: Queryable, keyId: string | null, limit: number): Promise<PartRef[]>;
  /** Puts a resealed body in place of one part (its codec and size unchanged). */
  replacePart(q: Queryable, ref: PartRef, part: StoredPart): Promise<void>;
  /** Every key id that sealed a part, sorted. */
  keyIds(q: Queryable): Promise<string[]>;
}
