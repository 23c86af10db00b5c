import { hash } from 'node:crypto';
import { randomBase62 } from '../ids.ts';

/** TFE's token text shape: `<14 base62>.atlasv1.<67 base62>`, ~480 bits from the CSPRNG. */
export function newTokenSecret(): string {
  return `${randomBase62(14)}.atlasv1.${randomBase62(67)}`;
}

/**
 * Tokens are stored as SHA-256 digests. A fast hash is right here (unlike for passwords): the
 * secret is long and random, so there is nothing to brute-force, and lookup is one index probe.
 */
export function digestSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
