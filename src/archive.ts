// Unpacks a configuration archive (a .tar.gz, as Terraform and go-tfe upload it) into an empty
// directory, refusing rather than repairing anything that could reach outside it or exhaust the
// host: absolute paths, `..`, links (symbolic or hard) whose target leaves the directory, device
// files and FIFOs, and more than MAX_UNPACKED_BYTES or MAX_ENTRIES once unpacked.
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar';

/** The largest archive accepted as uploaded (gzip-compressed): a configuration or a policy set. */
export const MAX_ARCHIVE_BYTES = 10 * 1024 * 1024;
export const MAX_UNPACKED_BYTES = 100 * 1024 * 1024;
export const MAX_ENTRIES = 10_000;

export class UnsafeArchiveError extends Error {}

const ALLOWED = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

/**
 * Throws UnsafeArchiveError naming the first entry it refuses; reads the archive once, writes
 * nothing. `unreadable: 'accept'` lets through what is not a readable archive at all (an upload
 * is stored as it is; a run of it errors), refusing only what is unsafe.
 */
export async function checkArchive(archive: Uint8Array, options: { unreadable?: 'refuse' | 'accept' } = {}): Promise<void> {
  let total = 0;
  let entries = 0;
  let problem: string | null = null;
  const refuse = (why: string) => {
    if (problem) return;
    problem = why;
    // Stop reading at once: a decompression bomb is not read to its end.
    parser.abort(new Error(why));
  };
  const parser = new tar.Parser({
    onReadEntry: (entry) => {
      entries++;
      const name = entry.path;
      if (entries > MAX_ENTRIES) refuse(`more than ${MAX_ENTRIES} entries`);
      if (!ALLOWED.has(entry.type)) refuse(`${name}: ${entry.type} entries are not allowed`);
      if (path.isAbsolute(name) || /^[A-Za-z]:/.test(name)) refuse(`${name}: absolute paths are not allowed`);
      if (name.split(/[\\/]/).includes('..')) refuse(`${name}: ".." is not allowed`);
      if (entry.type === 'SymbolicLink' || entry.type === 'Link') {
        const target = entry.linkpath ?? '';
        const resolved = entry.type === 'Link' ? path.posix.normalize(target) : path.posix.normalize(path.posix.join(path.posix.dirname(name), target));
        if (path.isAbsolute(target) || resolved === '..' || resolved.startsWith('../')) refuse(`${name}: links out of the configuration are not allowed`);
      }
      total += entry.size ?? 0;
      if (total > MAX_UNPACKED_BYTES) refuse(`more than ${MAX_UNPACKED_BYTES / 1024 / 1024} MiB once unpacked`);
      entry.resume();
    },
  });
  try {
    await pipeline(Readable.from([Buffer.from(archive)]), parser);
  } catch (e) {
    if (problem) throw new UnsafeArchiveError(`The configuration archive is refused: ${problem}`);
    if (options.unreadable === 'accept') return;
    throw new UnsafeArchiveError(`The configuration archive cannot be read: ${(e as Error).message}`);
  }
  if (problem) throw new UnsafeArchiveError(`The configuration archive is refused: ${problem}`);
}

/** Checks, then unpacks into `dir` (which must exist and be empty). */
export async function unpackArchive(archive: Uint8Array, dir: string): Promise<void> {
  await checkArchive(archive);
  await pipeline(
    Readable.from([Buffer.from(archive)]),
    tar.x({ cwd: dir, strict: true, preservePaths: false, noChmod: false, preserveOwner: false, maxDepth: 64 }),
  );
}
