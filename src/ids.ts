import { createHash, randomInt } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of base62 from the CSPRNG (randomInt is unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export type IdPrefix =
  | 'org'
  | 'user'
  | 'team'
  | 'at'
  | 'prj'
  | 'ws'
  | 'tprj'
  | 'polset'
  | 'var'
  | 'apool'
  | 'agent'
  | 'tb'
  | 'tag'
  | 'sv'
  | 'wsout'
  | 'tws'
  | 'cv'
  | 'run'
  | 'pol'
  | 'polsetver'
  | 'varset'
  | 'ou'
  | 'sess'
  | 'plan'
  | 'apply'
  | 're'
  | 'wsc'
  | 'polchk'
  | 'wsr'
  | 'rt'
  | 'nc'
  | 'ncd'
  | 'ncr'
  | 'pe'
  | 'sshkey';

/** Resource ids look like TFE's: `prj-` + 16 base62 characters. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}-${randomBase62(16)}`;
}

/**
 * An id of the same shape that is always the same for the same `parts`: for things Hangar derives
 * rather than creates (a workspace's resource keeps its id across state versions). 16 base62
 * characters of a SHA-256 of the parts.
 */
export function derivedId(prefix: IdPrefix, ...parts: string[]): string {
  let n = BigInt(`0x${createHash('sha256').update(JSON.stringify(parts)).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 16; i++) {
    out += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return `${prefix}-${out}`;
}

/** Cheap shape check so an obviously foreign id never reaches the database. */
export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}-`) && id.length <= 64;
}
