import { randomInt } from 'node:crypto';

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
  | 'polchk';

/** Resource ids look like TFE's: `prj-` + 16 base62 characters. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}-${randomBase62(16)}`;
}

/** Cheap shape check so an obviously foreign id never reaches the database. */
export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}-`) && id.length <= 64;
}
