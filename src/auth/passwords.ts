// Passwords, hashed with scrypt (Node's built-in, memory-hard; no native module to build). Each
// hash carries its own random salt and its cost parameters, `scrypt$N$r$p$salt$hash` (base64),
// so the parameters can be raised later: old hashes still verify with theirs, and `needsRehash`
// says which to replace at the user's next sign-in.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * One of OWASP's equivalent scrypt settings (N=2^15, r=8, p=3): 32 MiB of memory per hash
 * (128 × N × r bytes; Node runs the p lanes one after another, so memory does not grow with p),
 * a few tenths of a second on an idle server core.
 */
export const SCRYPT = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;
/** Refused before hashing: shorter is guessable, longer is only work for the server. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

/** What is wrong with a new password, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length === 0) return 'The password is empty';
  if ([...password].length < PASSWORD_MIN) return `The password is too short (minimum is ${PASSWORD_MIN} characters)`;
  if (password.length > PASSWORD_MAX) return `The password is too long (maximum is ${PASSWORD_MAX} characters)`;
  return null;
}

interface Params {
  N: number;
  r: number;
  p: number;
}

function derive(password: string, salt: Buffer, { N, r, p }: Params): Promise<Buffer> {
  // Node refuses more than 32 MiB unless told: allow what these parameters need, and a margin.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r + 16 * 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (e, key) => (e ? reject(e) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

const B64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A stored hash's parts, or null when it is not one Hangar wrote (or would cost too much to check). */
function parse(stored: string): { params: Params; salt: Buffer; key: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds, so that a tampered row cannot make one sign-in take the server's memory.
  const valid =
    Number.isInteger(N) &&
    N >= 2 &&
    N <= 2 ** 20 &&
    (N & (N - 1)) === 0 &&
    Number.isInteger(r) &&
    r >= 1 &&
    r <= 32 &&
    Number.isInteger(p) &&
    p >= 1 &&
    p <= 16;
  if (!valid || !B64.test(parts[4]!) || !B64.test(parts[5]!)) return null;
  return { params: { N, r, p }, salt: Buffer.from(parts[4]!, 'base64'), key: Buffer.from(parts[5]!, 'base64') };
}

// Verifying against nothing costs what verifying against a real hash costs, so that the time a
// sign-in takes does not tell whether the account exists or has a password.
let dummy: Promise<string> | null = null;

/** Whether `password` matches `stored` (null: no password set; always false, in the same time). */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  const parsed = stored === null ? null : parse(stored);
  if (!parsed || password.length > PASSWORD_MAX) {
    dummy ??= hashPassword('not the password of anyone');
    const d = parse(await dummy)!;
    await derive(password.slice(0, PASSWORD_MAX), d.salt, d.params);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.params);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** Whether a stored hash was made with weaker parameters than today's (to replace on next sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.params.N < SCRYPT.N || parsed.params.r < SCRYPT.r || parsed.params.p < SCRYPT.p;
}
