// What a blob is called. A key names the row its bytes belong to (family and owner) and which of
// that row's blobs it is; the same three segments are a path under HANGAR_BLOB_DIR, so each is
// checked here, once, before either backend sees it: a key can never climb out of the directory.

/** The domains that keep bytes; a row of each is a blob owner, and its deletion drops its blobs. */
export type BlobFamily = 'state-versions' | 'configuration-versions' | 'jobs' | 'policy-set-versions' | 'policy-checks';
export const BLOB_FAMILIES: readonly BlobFamily[] = ['state-versions', 'configuration-versions', 'jobs', 'policy-set-versions', 'policy-checks'];

export interface BlobKey {
  family: BlobFamily;
  /** The id of the owning row (a state version, a job, …). */
  owner: string;
  /** Which of the owner's blobs (`state`, `plan-file`, `log`, `archive`, …). */
  name: string;
}

/** One path segment: no separator, no leading dot (so neither `.` nor `..`), no control characters. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export class BlobKeyError extends Error {}

export function checkKey(key: BlobKey): BlobKey {
  if (!BLOB_FAMILIES.includes(key.family)) throw new BlobKeyError(`unknown blob family ${JSON.stringify(key.family)}`);
  for (const segment of [key.owner, key.name]) {
    if (typeof segment !== 'string' || !SEGMENT.test(segment) || segment.includes('..'))
      throw new BlobKeyError(`not a blob key segment: ${JSON.stringify(segment)}`);
  }
  return key;
}

export const keyText = (key: BlobKey) => `${key.family}/${key.owner}/${key.name}`;

/**
 * The associated data a part is sealed under: its key and byte offset, so a sealed part copied
 * under another key or offset does not open. State, plan files and log chunks keep the text they
 * were sealed with before the blob store existed: migration 0029 moved their ciphertext as it was
 * (a migration holds no key to reseal with).
 */
export function associatedData(key: BlobKey, part: number): string {
  if (key.family === 'state-versions') return `state-version:${key.owner}:${key.name}`;
  if (key.family === 'jobs') return key.name === 'log' ? `job-log:${key.owner}:${part}` : `job-blob:${key.owner}:${key.name}`;
  return `blob:${keyText(key)}:${part}`;
}
