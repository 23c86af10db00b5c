// Which terraform binary a job runs. The runner's own (HANGAR_TERRAFORM_BINARY, or `terraform` on
// PATH) serves `latest`, its own version, and any constraint that version meets; another exact
// version is fetched from HANGAR_TERRAFORM_MIRROR, a mirror in the layout of
// releases.hashicorp.com (`<mirror>/<v>/terraform_<v>_<os>_<arch>.zip` beside
// `terraform_<v>_SHA256SUMS`), checked against its SHA-256 sum, unpacked and kept under the data
// directory (`terraform/<v>/terraform`), so each version is fetched once. Two jobs wanting the
// same version at once share one fetch in a process; across processes, each writes a temporary
// file and renames it into place, so a reader never sees half a binary.
import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import type { TerraformSettings } from './terraform.ts';

export class VersionError extends Error {}

const EXACT = /^=?\s*v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$/;
const PART = /^\s*(=|!=|>=|<=|>|<|~>)?\s*v?(\d+(?:\.\d+){0,2})(-[0-9A-Za-z.-]+)?\s*$/;

type Triple = [number, number, number];
const triple = (v: string): Triple => {
  const [a = 0, b = 0, c = 0] = v.split('-')[0]!.split('.').map(Number);
  return [a, b, c];
};
const compare = (x: Triple, y: Triple) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2];

/** Whether `version` meets `constraint` (Terraform's operators; prereleases only by exact match). */
export function satisfies(version: string, constraint: string): boolean {
  const v = triple(version);
  const pre = version.includes('-');
  return constraint.split(',').every((raw) => {
    const m = PART.exec(raw);
    if (!m) return false;
    const [, op = '=', want, suffix = ''] = m;
    const segments = want!.split('.').length;
    const w = triple(want!);
    if (pre && `${want}${suffix}` !== version) return false;
    const c = compare(v, w);
    switch (op) {
      case '=':
        return c === 0;
      case '!=':
        return c !== 0;
      case '>':
        return c > 0;
      case '>=':
        return c >= 0;
      case '<':
        return c < 0;
      case '<=':
        return c <= 0;
      default: {
        // `~> 1.5` allows 1.x from 1.5; `~> 1.5.2` allows 1.5.x from 1.5.2.
        if (c < 0) return false;
        return segments <= 2 ? v[0] === w[0] : v[0] === w[0] && v[1] === w[1];
      }
    }
  });
}

const OS: Record<string, string> = { linux: 'linux', darwin: 'darwin', freebsd: 'freebsd', openbsd: 'openbsd', win32: 'windows' };
const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };

/** `terraform_<v>_<os>_<arch>.zip` for this machine. */
export const zipName = (version: string) => `terraform_${version}_${OS[process.platform] ?? process.platform}_${ARCH[process.arch] ?? process.arch}.zip`;

const fetching = new Map<string, Promise<string>>();

/**
 * The binary for `wanted` (a run's or its workspace's `terraform-version`) and its version, or a
 * VersionError that says why there is none.
 */
export async function chooseTerraform(
  settings: TerraformSettings,
  installed: string,
  wanted: string | null | undefined,
): Promise<{ binary: string; version: string }> {
  const own = { binary: settings.binary, version: installed };
  const asked = (wanted ?? '').trim();
  if (asked === '' || asked === 'latest' || asked.replace(/^=?\s*v?/, '') === installed) return own;
  const exact = EXACT.exec(asked)?.[1];
  if (!exact) {
    if (installed !== 'unknown' && satisfies(installed, asked)) return own;
    throw new VersionError(
      `Terraform version constraint "${asked}" is not met by this runner's Terraform ${installed}; only an exact version (such as 1.9.8) is fetched from HANGAR_TERRAFORM_MIRROR`,
    );
  }
  if (!settings.mirror) {
    throw new VersionError(
      `Terraform ${exact} was asked for, but this runner has Terraform ${installed} and no HANGAR_TERRAFORM_MIRROR to fetch other versions from`,
    );
  }
  const cached = path.join(settings.versionsDir, exact, 'terraform');
  if (await isFile(cached)) return { binary: cached, version: exact };
  let pending = fetching.get(exact);
  if (!pending) {
    pending = fetchVersion(settings.mirror, exact, cached).finally(() => fetching.delete(exact));
    fetching.set(exact, pending);
  }
  return { binary: await pending, version: exact };
}

const isFile = (p: string) =>
  stat(p).then(
    (s) => s.isFile(),
    () => false,
  );

async function download(url: string, version: string): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(300_000) });
  } catch (e) {
    throw new VersionError(`Terraform ${version} could not be fetched from ${url}: ${(e as Error).message}`);
  }
  if (!res.ok) throw new VersionError(`Terraform ${version} could not be fetched from ${url}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

async function fetchVersion(mirror: string, version: string, target: string): Promise<string> {
  const base = `${mirror.replace(/\/+$/, '')}/${version}`;
  const zip = zipName(version);
  const sums = (await download(`${base}/terraform_${version}_SHA256SUMS`, version)).toString('utf8');
  const expected = sums
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((f) => f[1]?.replace(/^\*/, '') === zip)?.[0]
    ?.toLowerCase();
  if (!expected) throw new VersionError(`Terraform ${version}: ${zip} is not listed in terraform_${version}_SHA256SUMS of the mirror`);
  const bytes = await download(`${base}/${zip}`, version);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) {
    throw new VersionError(`Terraform ${version}: checksum mismatch for ${zip} (SHA-256 ${actual}, SHA256SUMS says ${expected}); it is not used`);
  }
  const binary = unzipEntry(bytes, 'terraform', version);
  await mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.${randomBytes(6).toString('hex')}.partial`;
  try {
    await writeFile(temporary, binary, { mode: 0o755 });
    await chmod(temporary, 0o755);
    await rename(temporary, target);
  } finally {
    await rm(temporary, { force: true });
  }
  return target;
}

/**
 * One file of a zip archive, read through its central directory: stored or deflated entries,
 * which is what release archives hold (no zip64, no encryption: refused with a message).
 */
export function unzipEntry(zip: Buffer, name: string, version: string): Buffer {
  const bad = (why: string) => new VersionError(`Terraform ${version}: the release archive cannot be read (${why})`);
  // The end-of-central-directory record: at the end, after up to 64 KiB of comment.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw bad('not a zip archive');
  const entries = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== 0x02014b50) throw bad('a damaged central directory');
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extra = zip.readUInt16LE(at + 30);
    const comment = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const entryName = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extra + comment;
    if (entryName !== name) continue;
    if (flags & 0x1) throw bad('an encrypted entry');
    if (compressed === 0xffffffff || local === 0xffffffff) throw bad('zip64');
    if (zip.readUInt32LE(local) !== 0x04034b50) throw bad('a damaged local header');
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(start, start + compressed);
    const out = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : null;
    if (!out) throw bad(`compression method ${method}`);
    if (out.length !== size) throw bad('a size that does not match');
    return out;
  }
  throw bad(`no file named ${name}`);
}
