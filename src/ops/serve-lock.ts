// One server per SQLite file. The file is made for one process: a second server would keep its
// own caches of what the first one changes, and the two would contend for the write lock on every
// request. `serve` holds an exclusive lock for its lifetime; CLI commands never take it, so they
// still work beside the server (SQLite's WAL mode lets them share the database itself).
//
// The lock is SQLite's own (a POSIX advisory lock on a file next to the database, held by an
// open exclusive transaction): the kernel releases it when the process ends however it ends, so a
// crashed server leaves nothing stale behind, unlike a pid file.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Config } from '../config.ts';
import { ensurePrivateFile } from '../files.ts';
import { StartupError } from './startup.ts';

export const LOCK_SUFFIX = '.serve-lock';

/**
 * Takes the lock for the configured SQLite file (nothing for PostgreSQL); it is held until the
 * process exits. `restore` takes it too, so that no server starts on a half-restored file.
 */
export function holdServeLock(config: Pick<Config, 'databaseUrl'>, advice = 'stop it first, or give this one another HANGAR_DATA_DIR'): void {
  if (!config.databaseUrl.startsWith('sqlite:')) return;
  const database = config.databaseUrl.slice('sqlite:'.length);
  if (database === ':memory:') return;
  const file = path.resolve(database) + LOCK_SUFFIX;
  ensurePrivateFile(file, { create: true });
  const lock = new DatabaseSync(file);
  try {
    lock.exec('PRAGMA busy_timeout = 0');
    lock.exec('PRAGMA locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if ((error as { errcode?: number }).errcode !== 5) throw error; // not SQLITE_BUSY
    throw new StartupError(`another Hangar server is already serving ${path.resolve(database)} (it holds ${file}); ${advice}`);
  }
  held.push(lock);
}

/** Kept reachable so the lock's connection is never collected and closed while serving. */
const held: DatabaseSync[] = [];
