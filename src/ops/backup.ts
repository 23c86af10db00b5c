// `hangar backup FILE` and `hangar restore FILE`: a consistent copy of the SQLite database taken
// while the server runs, and putting one back into the configured data directory. PostgreSQL has
// its own tools for both; for it these commands print the exact pg_dump / pg_restore commands.
//
// The encryption key is half of a backup: without it the sealed values (sensitive parameters,
// state files) in the copy can never be opened. A generated key file is copied beside the backup
// as FILE.key (private, and meant to be stored apart from FILE); a key in HANGAR_ENCRYPTION_KEY is
// not Hangar's to copy, and the command says so.
import { closeSync, copyFileSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Config } from '../config.ts';
import { KEY_FILE, openKeyring } from '../crypto/keys.ts';
import { keyIdsInUse } from '../crypto/sealed.ts';
import { openDatabase } from '../db/index.ts';
import { LATEST_MIGRATION, MIGRATION_NAMES, migrateToLatest } from '../db/migrate.ts';
import { ensurePrivateFile } from '../files.ts';
import { holdServeLock } from './serve-lock.ts';
import { checkDirectories, databaseLabel, StartupError } from './startup.ts';

/** Where the printed lines go (stderr for what happened, stdout for what to run). */
export interface Output {
  info(line: string): void;
  result(line: string): void;
}

const KEY_SUFFIX = '.key';

function sqliteFile(config: Config): string {
  return path.resolve(config.databaseUrl.slice('sqlite:'.length));
}

/**
 * Blobs kept as files (HANGAR_BLOB_DIR) are not in the database, so not in its copy: said every
 * time, since a backup without them restores rows whose state, archives and logs are gone.
 */
function blobDirNote(config: Config, kind: 'backup' | 'restore', out: Output): void {
  if (!config.blobDir) return;
  out.info(
    kind === 'backup'
      ? `blobs: HANGAR_BLOB_DIR (${config.blobDir}) is NOT in this backup; copy that directory now, after the database (see docs/operations.md)`
      : `blobs: HANGAR_BLOB_DIR (${config.blobDir}) is not restored by this command; put back the copy of it taken with this backup`,
  );
}

/** Creates `file` empty and private, failing if anything is there: a backup never overwrites. */
function createExclusive(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new StartupError(`${file} already exists; a backup never overwrites a file, so name a new one`);
    throw e;
  }
}

export async function backup(config: Config, target: string, out: Output): Promise<number> {
  if (!config.databaseUrl.startsWith('sqlite:')) return postgresInstructions(config, target, 'backup', out);
  const source = sqliteFile(config);
  if (!existsSync(source)) throw new StartupError(`there is no database at ${source} to back up; check HANGAR_DATA_DIR (or HANGAR_DATABASE_URL)`);
  const file = path.resolve(target);
  const keyFile = path.join(config.dataDir, KEY_FILE);
  const copyKey = config.encryptionKeys === null && existsSync(keyFile);
  if (copyKey && existsSync(file + KEY_SUFFIX))
    throw new StartupError(`${file + KEY_SUFFIX} already exists; a backup never overwrites a file, so name a new one`);
  createExclusive(file);
  out.info(`database: ${databaseLabel(config)}`);
  blobDirNote(config, 'backup', out);
  const db = new DatabaseSync(source);
  try {
    // A writer holds the lock only for a moment; the copy waits for it rather than failing.
    db.exec('PRAGMA busy_timeout = 5000');
    // One read transaction: a consistent snapshot even while the server writes (WAL lets both
    // go on), written compactly into the empty file made above.
    db.prepare('VACUUM INTO ?').run(file);
  } catch (e) {
    rmSync(file, { force: true });
    throw e;
  } finally {
    db.close();
  }
  ensurePrivateFile(file, { create: false });
  out.info(`backed up to ${file} (${statSync(file).size} bytes)`);
  if (copyKey) {
    copyFileSync(keyFile, file + KEY_SUFFIX, 0);
    ensurePrivateFile(file + KEY_SUFFIX, { create: false });
    out.info(
      `encryption key: copied to ${file + KEY_SUFFIX}; store it apart from the backup (whoever holds both can read every secret), and keep it: without it the sealed values in the backup cannot be opened`,
    );
  } else {
    out.info(keyAdvice(config));
  }
  return 0;
}

function keyAdvice(config: Config): string {
  if (config.encryptionKeys === null) return 'encryption key: none yet (nothing has been sealed)';
  return 'encryption key: NOT in the backup; it is the value of HANGAR_ENCRYPTION_KEY, which you must keep as safely as the backup: without it the sealed values in the backup cannot be opened';
}

export interface RestoreOptions {
  force: boolean;
}

export async function restore(config: Config, from: string, options: RestoreOptions, out: Output): Promise<number> {
  if (!config.databaseUrl.startsWith('sqlite:')) return postgresInstructions(config, from, 'restore', out);
  const source = path.resolve(from);
  const target = sqliteFile(config);
  if (!existsSync(source)) throw new StartupError(`there is no backup at ${source}`);
  const migrations = backupMigrations(source);
  checkDirectories(config);
  // No server may start on the file while it is replaced, and none may be running on it.
  holdServeLock(config, 'stop it before restoring');
  if (existsSync(target) && statSync(target).size > 0 && !options.force) {
    throw new StartupError(`${target} already exists; pass --force to replace it (everything in it is lost), or restore into another HANGAR_DATA_DIR`);
  }
  const sourceKey = source + KEY_SUFFIX;
  const targetKey = path.join(config.dataDir, KEY_FILE);
  const restoreKey = config.encryptionKeys === null && existsSync(sourceKey);
  if (restoreKey && existsSync(targetKey) && !sameKey(sourceKey, targetKey) && !options.force) {
    throw new StartupError(`${targetKey} holds another key than ${sourceKey}; pass --force to replace it (values sealed with it are then lost)`);
  }
  const temporary = `${target}.restore-${randomBytes(6).toString('hex')}`;
  createExclusive(temporary);
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    db.prepare('VACUUM INTO ?').run(temporary);
  } catch (e) {
    rmSync(temporary, { force: true });
    throw e;
  } finally {
    db.close();
  }
  // The old file's write-ahead log would be replayed onto the new file: it goes first.
  for (const suffix of ['-wal', '-shm']) rmSync(target + suffix, { force: true });
  renameSync(temporary, target);
  if (restoreKey) {
    copyFileSync(sourceKey, targetKey);
    ensurePrivateFile(targetKey, { create: false });
  }
  out.info(`database: ${databaseLabel(config)}`);
  out.info(`restored from ${source}`);
  blobDirNote(config, 'restore', out);
  if (restoreKey) out.info(`encryption key: restored from ${sourceKey} to ${targetKey}`);
  for (const line of await migrateAndCheckKeys(
    config,
    MIGRATION_NAMES.filter((m) => !migrations.includes(m)),
  ))
    out.info(line);
  return 0;
}

/** The migrations a backup has run; refuses a file that is no Hangar database or is newer than this build. */
function backupMigrations(file: string): string[] {
  let names: string[];
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const check = db.prepare('PRAGMA quick_check').all() as Array<{ quick_check: string }>;
    if (check[0]?.quick_check !== 'ok') throw new StartupError(`${file} is damaged (SQLite's quick_check: ${check[0]?.quick_check}); restore another backup`);
    names = (db.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);
  } catch (e) {
    if (e instanceof StartupError) throw e;
    throw new StartupError(`${file} is not a Hangar database backup (${(e as Error).message})`);
  } finally {
    db.close();
  }
  const unknown = names.filter((n) => !MIGRATION_NAMES.includes(n));
  if (unknown.length > 0)
    throw new StartupError(
      `the backup's schema ${unknown.join(', ')} is newer than this Hangar knows (latest ${LATEST_MIGRATION}); restore it with a Hangar that has it`,
    );
  return names;
}

function sameKey(a: string, b: string): boolean {
  return readFileSync(a, 'utf8').trim() === readFileSync(b, 'utf8').trim();
}

/**
 * Brings a backup from an older Hangar up to this one's schema (as the server would on start),
 * then says whether the keys this installation has open what the restored database holds.
 */
async function migrateAndCheckKeys(config: Config, missing: string[]): Promise<string[]> {
  const database = openDatabase(config.databaseUrl);
  try {
    const lines = missing.length > 0 ? [`the backup is from an older Hangar: applied ${(await migrateToLatest(database)).join(', ')}`] : [];
    const ids = await keyIdsInUse(database.db);
    if (ids.length === 0) return [...lines, 'encryption key: nothing in the database is sealed'];
    try {
      const ring = await openKeyring(config, database);
      return [...lines, `encryption key: every sealed value names a key this installation holds (${ring.keyIds.filter((id) => ids.includes(id)).join(', ')})`];
    } catch (e) {
      return [...lines, `warning: ${(e as Error).message}`];
    }
  } finally {
    await database.close();
  }
}

/** PostgreSQL: what to run instead, for the configured database; never the password. */
function postgresInstructions(config: Config, file: string, kind: 'backup' | 'restore', out: Output): number {
  const url = new URL(config.databaseUrl);
  const hasPassword = url.password !== '';
  url.password = '';
  // libpq refuses parameters it does not know; Hangar's own (statement_timeout…) are not its.
  for (const name of [...url.searchParams.keys()]) if (!LIBPQ_PARAMETERS.has(name)) url.searchParams.delete(name);
  const quoted = `'${url.toString().replaceAll("'", "'\\''")}'`;
  const where = `'${path.resolve(file).replaceAll("'", "'\\''")}'`;
  out.info(`database: ${databaseLabel(config)}`);
  blobDirNote(config, kind, out);
  out.info(
    `Hangar does not copy a PostgreSQL database itself: ${kind === 'backup' ? 'pg_dump takes a consistent copy while Hangar runs' : 'restore into an empty database with pg_restore'}. Run:`,
  );
  if (kind === 'backup') {
    out.result(`pg_dump --format=custom --no-owner --file=${where} ${quoted}`);
  } else {
    out.result(`pg_restore --no-owner --exit-on-error --single-transaction --dbname=${quoted} ${where}`);
  }
  if (hasPassword) out.info('(the password is left out: give it in PGPASSWORD or ~/.pgpass)');
  out.info(
    kind === 'backup'
      ? 'encryption key: keep HANGAR_ENCRYPTION_KEY with the dump (apart from it): without it the sealed values in the dump cannot be opened'
      : 'encryption key: start Hangar with the HANGAR_ENCRYPTION_KEY the dump was made with',
  );
  return 1;
}

const LIBPQ_PARAMETERS = new Set([
  'host',
  'port',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'sslpassword',
  'connect_timeout',
  'application_name',
  'options',
  'target_session_attrs',
]);
