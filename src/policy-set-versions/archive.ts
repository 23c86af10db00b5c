// Unpacking a policy set version's archive (a tar.gz, as go-tfe's packContents makes it) into
// memory, refusing anything that could reach outside it or exhaust the server: absolute paths,
// `..` segments, links of either kind, devices and fifos, and more bytes or entries than a
// policy set needs. Nothing is written to disk.
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzip as gunzipCallback } from 'node:zlib';
import { extract } from 'tar-stream';

/** The most bytes an archive may unpack to, in all. */
export const MAX_UNPACKED_BYTES = 20 * 1024 * 1024;
export const MAX_ENTRIES = 2000;

// Off the event loop: inflating megabytes would hold up every other request meanwhile.
const gunzip = promisify(gunzipCallback);

/** Why an archive was refused: the version's `error`. */
export class ArchiveError extends Error {}

/** `a/./b/` → `a/b`; undefined for a path that is absolute or climbs out with `..`. */
export function normalizePath(name: string): string | undefined {
  if (name.startsWith('/') || name.includes('\\') || /^[A-Za-z]:/.test(name)) return undefined;
  const parts: string[] = [];
  for (const part of name.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return undefined;
    parts.push(part);
  }
  return parts.join('/');
}

/** The regular files of a tar.gz, by normalized path. */
export async function unpack(gzipped: Uint8Array): Promise<Map<string, Buffer>> {
  let tar: Buffer;
  try {
    // maxOutputLength bounds a decompression bomb before it is inflated in full.
    tar = await gunzip(gzipped, { maxOutputLength: MAX_UNPACKED_BYTES + 1024 * 1024 });
  } catch (e) {
    const tooBig = (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw new ArchiveError(tooBig ? `The archive unpacks to more than ${MAX_UNPACKED_BYTES} bytes` : 'The upload is not a gzip-compressed tar archive');
  }
  const files = new Map<string, Buffer>();
  let entries = 0;
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const { name, type } = entry.header;
      entries += 1;
      if (entries > MAX_ENTRIES) throw new ArchiveError(`The archive holds more than ${MAX_ENTRIES} entries`);
      const path = normalizePath(name);
      if (path === undefined) throw new ArchiveError(`The archive entry ${JSON.stringify(name)} points outside the archive`);
      if (type === 'directory') {
        entry.resume();
        continue;
      }
      if (type !== 'file' && type !== 'contiguous-file')
        throw new ArchiveError(`The archive entry ${JSON.stringify(name)} is a ${type ?? 'special file'}; only files and directories are accepted`);
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      files.set(path, Buffer.concat(chunks));
    }
  })();
  Readable.from([tar]).pipe(reader);
  try {
    await done;
  } catch (e) {
    reader.destroy();
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError('The upload is not a valid tar archive');
  }
  return files;
}
