// Blobs as files under HANGAR_BLOB_DIR: `<dir>/<family>/<owner>/<name>/<offset, 15 digits>`, one
// file per part, each a header line and the sealed bytes. The header is the id of the key that
// sealed it (`-`: unsealed); a compressed part's adds its codec and plaintext size
// (`<key id> zstd <size>`), which its file's length no longer tells.
// - Writes are atomic: a private temporary file, fsynced, then renamed (replacing) or hard-linked
//   (adding a log part: the link fails if the offset is taken, so two appenders never share one).
// - Paths come only from checked keys (keys.ts), and are checked again to stay inside the directory.
// - Nothing here joins a database transaction: a write whose transaction then rolls back leaves
//   a file no row names, which costs space, never correctness. Files of deleted owners are removed
//   by the sweep (store.ts), from the queue the database's triggers fill.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { SEALED_OVERHEAD } from '../crypto/keyring.ts';
import type { BlobBackend, BlobCodec, PartRef, StoredPart } from './backend.ts';
import { BLOB_FAMILIES, checkKey, type BlobFamily, type BlobKey } from './keys.ts';

const OFFSET = /^\d{15}$/;
const PLAIN = '-';
const pad = (n: number) => String(n).padStart(15, '0');

interface Header {
  keyId: string | null;
  codec: BlobCodec | null;
  /** The plaintext size a compressed part records; null when the file's length tells it. */
  size: number | null;
}

const headerText = (p: Pick<StoredPart, 'keyId' | 'codec' | 'size'>) => `${p.keyId ?? PLAIN}${p.codec ? ` ${p.codec} ${p.size}` : ''}\n`;

function parseHeader(line: string): Header {
  const [id, codec, size] = line.split(' ');
  const keyId = id === PLAIN ? null : id!;
  if (codec === undefined) return { keyId, codec: null, size: null };
  if (codec !== 'zstd' || !/^\d+$/.test(size ?? '')) throw new Error(`unreadable blob header: ${JSON.stringify(line)}`);
  return { keyId, codec, size: Number(size) };
}

/** The plaintext size of a part whose sealed bytes are `bodyLength` long. */
const plainSize = (h: Header, bodyLength: number) => h.size ?? (h.keyId === null ? bodyLength : bodyLength - SEALED_OVERHEAD);

export function filesystemBlobBackend(root: string): BlobBackend {
  const dir = path.resolve(root);

  function inside(...segments: string[]): string {
    const p = path.resolve(dir, ...segments);
    if (!p.startsWith(dir + path.sep)) throw new Error('blob path escapes HANGAR_BLOB_DIR');
    return p;
  }
  const keyDir = (key: BlobKey) => {
    checkKey(key);
    return inside(key.family, key.owner, key.name);
  };

  /** Writes a private temporary file beside the blobs; the caller renames or links it into place. */
  async function temporary(p: StoredPart): Promise<string> {
    const tmpDir = inside('.tmp');
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });
    const file = path.join(tmpDir, `${process.pid}.${randomBytes(8).toString('hex')}`);
    const fh = await open(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
    try {
      await fh.writeFile(Buffer.concat([Buffer.from(headerText(p)), p.body]));
      await fh.sync();
    } finally {
      await fh.close();
    }
    return file;
  }

  async function offsets(d: string): Promise<number[]> {
    try {
      return (await readdir(d))
        .filter((f) => OFFSET.test(f))
        .map(Number)
        .sort((a, b) => a - b);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  }

  async function readPart(file: string, part: number, next: number | undefined): Promise<StoredPart> {
    const raw = await readFile(file);
    const nl = raw.indexOf(0x0a);
    const head = parseHeader(raw.subarray(0, nl).toString('utf8'));
    const body = raw.subarray(nl + 1);
    // Parts are contiguous: a part ends where the next begins; the last one's size is its plaintext's.
    const size = next !== undefined ? next - part : plainSize(head, body.length);
    return { part, size, keyId: head.keyId, codec: head.codec, body };
  }

  async function* allParts(): AsyncGenerator<PartRef & { file: string }> {
    for (const family of BLOB_FAMILIES) {
      const owners = await readdir(inside(family)).catch(() => [] as string[]);
      for (const owner of owners) {
        const names = await readdir(inside(family, owner)).catch(() => [] as string[]);
        for (const name of names) {
          const key = { family, owner, name };
          for (const part of await offsets(keyDir(key))) yield { key, part, file: path.join(keyDir(key), pad(part)) };
        }
      }
    }
  }

  /** A part's header, and how many bytes it takes in the file. */
  async function headerOf(file: string): Promise<Header & { length: number }> {
    const fh = await open(file, 'r');
    try {
      const { buffer, bytesRead } = await fh.read(Buffer.alloc(128), 0, 128, 0);
      const line = buffer.subarray(0, bytesRead).toString('utf8').split('\n')[0]!;
      return { ...parseHeader(line), length: Buffer.byteLength(line) + 1 };
    } finally {
      await fh.close();
    }
  }

  return {
    kind: 'filesystem',
    async put(_q, key, part) {
      const d = keyDir(key);
      await mkdir(d, { recursive: true, mode: 0o700 });
      const tmp = await temporary(part);
      await rename(tmp, path.join(d, pad(0)));
      for (const o of await offsets(d)) if (o !== 0) await rm(path.join(d, pad(o)), { force: true });
    },
    async add(_q, key, part) {
      const d = keyDir(key);
      await mkdir(d, { recursive: true, mode: 0o700 });
      const tmp = await temporary(part);
      try {
        await link(tmp, path.join(d, pad(part.part)));
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e;
      } finally {
        await unlink(tmp);
      }
    },
    async parts(_q, key, start, end) {
      const d = keyDir(key);
      const all = await offsets(d);
      const result: StoredPart[] = [];
      for (let i = 0; i < all.length; i++) {
        const part = all[i]!;
        const next = all[i + 1];
        if (part >= end) break;
        if (next !== undefined && next <= start) continue;
        const p = await readPart(path.join(d, pad(part)), part, next);
        // An empty whole blob is one part of no bytes: still there when a read starts at it.
        if (part + p.size > start || (p.size === 0 && part >= start)) result.push(p);
      }
      return result;
    },
    async end(_q, key) {
      const d = keyDir(key);
      const all = await offsets(d);
      const last = all.at(-1);
      if (last === undefined) return 0;
      const { size } = await stat(path.join(d, pad(last)));
      const head = await headerOf(path.join(d, pad(last)));
      return last + plainSize(head, size - head.length);
    },
    async names(_q, family, owner) {
      checkKey({ family, owner, name: 'x' });
      return readdir(inside(family, owner)).catch(() => []);
    },
    async delete(_q, key) {
      await rm(keyDir(key), { recursive: true, force: true });
    },
    async deleteOwners(_q, family: BlobFamily, owners) {
      for (const owner of owners) {
        checkKey({ family, owner, name: 'x' });
        await rm(inside(family, owner), { recursive: true, force: true });
      }
    },
    async stale(_q, keyId, limit) {
      const found: PartRef[] = [];
      for await (const p of allParts()) {
        const sealedWith = (await headerOf(p.file)).keyId;
        if (keyId === null ? sealedWith === null : sealedWith !== keyId) found.push({ key: p.key, part: p.part });
        if (found.length >= limit) break;
      }
      return found;
    },
    async replacePart(_q, ref, part) {
      const tmp = await temporary(part);
      await rename(tmp, path.join(keyDir(ref.key), pad(ref.part)));
    },
    async keyIds() {
      const ids = new Set<string>();
      for await (const p of allParts()) {
        const id = (await headerOf(p.file)).keyId;
        if (id !== null) ids.add(id);
      }
      return [...ids].sort();
    },
  };
}
