// Where the encryption keys come from, decided once at start-up: HANGAR_ENCRYPTION_KEY, or (for
// the embedded SQLite default only) a key generated into the data directory on first start.
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { filesystemBlobBackend } from '../blobs/filesystem.ts';
import { ConfigError, type Config } from '../config.ts';
import type { Database, Dialect } from '../db/index.ts';
import { ensurePrivateDirectory, ensurePrivateFile } from '../files.ts';
import { KEY_BYTES, Keyring } from './keyring.ts';
import { keyIdsInUse } from './sealed.ts';

export const KEY_FILE = 'encryption.key';
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const HOW_TO = 'generate one with `openssl rand -base64 32`';

function decodeKey(text: string): Buffer | null {
  if (!BASE64.test(text)) return null;
  const key = Buffer.from(text, 'base64');
  return key.length === KEY_BYTES ? key : null;
}

/**
 * `HANGAR_ENCRYPTION_KEY`: comma-separated base64 keys of 32 bytes, the first one encrypting.
 * Error messages say which key is wrong, never what it is.
 */
export function parseEncryptionKeys(raw: string): Buffer[] {
  const items = raw.split(',').map((s) => s.trim());
  if (items.every((s) => s === '')) throw new ConfigError(`HANGAR_ENCRYPTION_KEY holds no key; ${HOW_TO}`);
  return items.map((text, i) => {
    const key = decodeKey(text);
    if (!key) {
      throw new ConfigError(`HANGAR_ENCRYPTION_KEY: key number ${i + 1} is not the base64 encoding of exactly ${KEY_BYTES} bytes; ${HOW_TO}`);
    }
    return key;
  });
}

/**
 * Reads the generated key file, creating it first if needed. The new key is written to a
 * private temporary file and hard-linked into place, so two processes starting at once agree
 * on one key and neither can read a half-written file.
 */
export function readOrCreateKeyFile(file: string): Buffer {
  if (!existsSync(file)) createKeyFile(file);
  ensurePrivateFile(file, { create: false });
  const key = decodeKey(readFileSync(file, 'utf8').trim());
  if (!key) throw new ConfigError(`${file} does not hold a base64 ${KEY_BYTES}-byte key; restore it from a backup or set HANGAR_ENCRYPTION_KEY`);
  return key;
}

function createKeyFile(file: string): void {
  ensurePrivateDirectory(path.dirname(file));
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, `${randomBytes(KEY_BYTES).toString('base64')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (e) {
    // Another process created it first: its key wins and ours is discarded unused.
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    unlinkSync(temporary);
  }
}

/**
 * The configured keys, or null when the generated key file is to be used (SQLite only). Refuses
 * a malformed setting, and a missing one with PostgreSQL: every instance that shares the
 * database has to hold the same key, and a key generated on one machine's disk would leave the
 * others unable to read what it wrote. Touches no file, so it can run before anything else.
 */
export function configuredKeys(config: Pick<Config, 'encryptionKeys'>, dialect: Dialect): Buffer[] | null {
  if (config.encryptionKeys !== null) return parseEncryptionKeys(config.encryptionKeys);
  if (dialect === 'postgres') {
    throw new ConfigError(`HANGAR_ENCRYPTION_KEY is required with PostgreSQL (every Hangar instance sharing the database needs the same key); ${HOW_TO}`);
  }
  return null;
}

/**
 * The keyring for this process. `sealedWith` lists the key ids that the database's sensitive
 * values name: every one must be in the keyring, or those values could never be opened again.
 * A key file is generated only while nothing is sealed yet, so a lost file is reported, never
 * silently replaced by a new key.
 */
export function loadKeyring(config: Pick<Config, 'encryptionKeys' | 'dataDir'>, dialect: Dialect, sealedWith: readonly string[] = []): Keyring {
  const keys = configuredKeys(config, dialect);
  const file = path.join(config.dataDir, KEY_FILE);
  const list = (ids: readonly string[]) => `key id${ids.length > 1 ? 's' : ''} ${ids.join(', ')}`;
  if (keys === null && sealedWith.length > 0 && !existsSync(file)) {
    throw new ConfigError(
      `${file} is missing, but sensitive values in the database are sealed with ${list(sealedWith)}; restore the file from a backup, or set HANGAR_ENCRYPTION_KEY to the key that sealed them (a new key could not open them, so none is generated)`,
    );
  }
  const ring = new Keyring(keys ?? [readOrCreateKeyFile(file)]);
  const missing = sealedWith.filter((id) => !ring.keyIds.includes(id));
  if (missing.length > 0) {
    const holder = keys ? 'HANGAR_ENCRYPTION_KEY' : `${file} (${list(ring.keyIds)})`;
    throw new ConfigError(
      `sensitive values in the database are sealed with ${list(missing)}, which ${holder} does not hold; add the key that sealed them to HANGAR_ENCRYPTION_KEY (comma-separated, after the key that encrypts) or restore it from a backup`,
    );
  }
  return ring;
}

/**
 * The keyring, checked against the key ids that the database's sealed values name, and those of
 * the blob files under HANGAR_BLOB_DIR when blobs are kept there.
 */
export async function openKeyring(config: Pick<Config, 'encryptionKeys' | 'dataDir'> & { blobDir?: string | null }, database: Database): Promise<Keyring> {
  const files = config.blobDir ? await filesystemBlobBackend(config.blobDir).keyIds(database.db) : [];
  return loadKeyring(config, database.dialect, [...new Set([...(await keyIdsInUse(database.db)), ...files])].sort());
}
