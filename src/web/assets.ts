// The UI's static files (one style sheet, one script), read once at start-up, named by the hash
// of their content so that browsers may keep them for a year, and compressed once (gzip and
// brotli) so that no request pays for compression.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';

export interface Asset {
  /** The URL path the pages link to: /app/assets/<name>.<hash>.<ext> */
  url: string;
  type: string;
  etag: string;
  identity: Buffer;
  gzip: Buffer;
  br: Buffer;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };
const FILES = ['app.css', 'app.js'];

export interface Assets {
  /** The URL of a file by its plain name (`app.css`). */
  url(name: string): string;
  /** The asset at a hashed URL name, if any. */
  byUrlName(name: string): Asset | undefined;
}

export function loadAssets(dir = path.join(import.meta.dirname, 'assets')): Assets {
  const byName = new Map<string, Asset>();
  const byUrl = new Map<string, Asset>();
  for (const file of FILES) {
    const identity = readFileSync(path.join(dir, file));
    const hash = createHash('sha256').update(identity).digest('hex').slice(0, 12);
    const ext = path.extname(file);
    const urlName = `${path.basename(file, ext)}.${hash}${ext}`;
    const asset: Asset = {
      url: `/app/assets/${urlName}`,
      type: TYPES[ext]!,
      etag: `"${hash}"`,
      identity,
      gzip: gzipSync(identity, { level: 9 }),
      br: brotliCompressSync(identity),
    };
    byName.set(file, asset);
    byUrl.set(urlName, asset);
  }
  return {
    url: (name) => byName.get(name)!.url,
    byUrlName: (name) => byUrl.get(name),
  };
}

/** The best encoding the client accepts of those held, and its bytes. */
export function negotiate(asset: Asset, acceptEncoding: string | undefined): { encoding: 'br' | 'gzip' | null; body: Buffer } {
  const accepted = (acceptEncoding ?? '').toLowerCase();
  const takes = (name: string) => new RegExp(`(^|,)\\s*${name}\\s*(;\\s*q=(?!0(\\.0*)?\\s*(,|$))[0-9.]+)?\\s*(,|$)`).test(accepted);
  if (takes('br')) return { encoding: 'br', body: asset.br };
  if (takes('gzip')) return { encoding: 'gzip', body: asset.gzip };
  return { encoding: null, body: asset.identity };
}
