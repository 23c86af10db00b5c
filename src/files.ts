// Hangar's files on disk hold token digests and sealed secrets (the SQLite database) or the key
// that opens them (encryption.key): only the user Hangar runs as may read them, whatever the
// umask says.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

const PRIVATE_DIRECTORY = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Creates `dir` and any missing parents with mode 0700. A directory that already exists keeps
 * its mode: the operator may have set it up on purpose (a mounted volume, a shared parent),
 * and the files Hangar keeps in it are private themselves.
 */
export function ensurePrivateDirectory(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIRECTORY });
  if (first === undefined) return;
  // mkdir's mode passes through the umask; chmod does not.
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    chmodSync(d, PRIVATE_DIRECTORY);
    if (d === path.resolve(first) || d === path.dirname(d)) break;
  }
}

/**
 * Makes `file` mode 0600, creating it empty when `create` is set and it does not exist. A file
 * Hangar keeps is tightened even when an earlier version (or a permissive umask) left it
 * readable by others; a file owned by another user is left as it is.
 */
export function ensurePrivateFile(file: string, options: { create: boolean }): void {
  try {
    if (options.create) closeSync(openSync(file, 'a', PRIVATE_FILE));
    chmodSync(file, PRIVATE_FILE);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EPERM' || (code === 'ENOENT' && !options.create)) return;
    throw e;
  }
}
