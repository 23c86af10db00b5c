// Authenticated encryption of small secrets (sensitive parameter values) with AES-256-GCM.
//
// Ciphertext text: `v1:<key id>:<base64 of nonce ‖ ciphertext ‖ tag>`. The key id names the key
// that sealed the value, so several keys can be configured at once while `hangar rotate-key`
// moves old values onto the first one. The caller's associated data (the parameter id) is bound
// into the tag: a ciphertext copied onto another row does not decrypt.
import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { inspect } from 'node:util';

export const KEY_BYTES = 32;
const VERSION = 'v1';
const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** How many bytes sealing adds to a text: the nonce before it and the tag after it. */
export const SEALED_OVERHEAD = NONCE_BYTES + TAG_BYTES;

/** A value that cannot be opened: unknown key, wrong associated data, or tampered text. */
export class DecryptionError extends Error {}

/**
 * A short public name for a key: a digest prefix, so nothing needs configuring beyond the key
 * itself and reordering the configured keys changes nothing.
 */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('hangar-encryption-key:').update(key).digest('hex').slice(0, 16);
}

/**
 * The keyring a service was given. Only `serve` and `rotate-key` load keys; the other CLI
 * commands build the same services and never reach a path that seals, opens or signs.
 */
export function loadedKeyring(keyring: Keyring | null): Keyring {
  if (!keyring) throw new Error('encryption keys are not loaded in this process');
  return keyring;
}

export class Keyring {
  /** Key id → key; the first entry encrypts. Private, so no serializer can reach it. */
  readonly #keys: Map<string, KeyObject>;
  readonly #primaryId: string;

  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new Error('a keyring needs at least one key');
    this.#keys = new Map();
    for (const key of keys) {
      if (key.length !== KEY_BYTES) throw new Error(`encryption keys must be ${KEY_BYTES} bytes`);
      const id = keyIdOf(key);
      // Imported once: a cipher made from raw key bytes imports them on every seal and open, which
      // was a third of opening a 64 KiB log part.
      if (!this.#keys.has(id)) this.#keys.set(id, createSecretKey(Buffer.from(key)));
    }
    this.#primaryId = keyIdOf(keys[0]!);
  }

  /** The id of the key new values are sealed with. */
  get primaryKeyId(): string {
    return this.#primaryId;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  encrypt(plaintext: string, associatedData: string): string {
    return this.encryptBytes(Buffer.from(plaintext, 'utf8'), associatedData);
  }

  /** The same sealing for bytes that need not be text (state files are kept byte for byte). */
  encryptBytes(plaintext: Uint8Array, associatedData: string): string {
    const { keyId, body } = this.seal(plaintext, associatedData);
    return `${VERSION}:${keyId}:${body.toString('base64')}`;
  }

  /**
   * The sealing without the text envelope, for the blob store (blobs/), which keeps the key id
   * beside the bytes instead of spending a third more space on base64: nonce ‖ ciphertext ‖ tag.
   */
  seal(plaintext: Uint8Array, associatedData: string): { keyId: string; body: Buffer } {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#keys.get(this.#primaryId)!, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    // GCM's final() adds no bytes: the sealed form is assembled with one copy of the text.
    const body = cipher.update(plaintext);
    cipher.final();
    return { keyId: this.#primaryId, body: Buffer.concat([nonce, body, cipher.getAuthTag()]) };
  }

  /** Opens what `seal` made; throws DecryptionError as `decryptBytes` does. */
  open(keyId: string, raw: Uint8Array, associatedData: string): Buffer {
    const key = this.#keys.get(keyId);
    if (!key) throw new DecryptionError(`value is sealed with key ${keyId}, which is not configured`);
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new DecryptionError('ciphertext is truncated');
    const decipher = createDecipheriv(ALGORITHM, key, raw.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    try {
      // GCM's final() only checks the tag (it adds no bytes), so the text is update()'s, uncopied.
      const text = decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES));
      decipher.final();
      return text;
    } catch {
      throw new DecryptionError(`value sealed with key ${keyId} failed authentication`);
    }
  }

  decrypt(ciphertext: string, associatedData: string): string {
    return this.decryptBytes(ciphertext, associatedData).toString('utf8');
  }

  /** `${key id}:${purpose}` → the MAC key derived for that purpose from that key (derived once). */
  readonly #macKeys = new Map<string, Buffer>();

  #mac(keyId: string, purpose: string, message: string): Buffer {
    const id = `${keyId}:${purpose}`;
    let key = this.#macKeys.get(id);
    if (!key) this.#macKeys.set(id, (key = Buffer.from(hkdfSync('sha256', this.#keys.get(keyId)!, Buffer.alloc(0), `hangar-mac:${purpose}`, 32))));
    return createHmac('sha256', key).update(message, 'utf8').digest();
  }

  /**
   * A MAC of `message` under a key derived from the primary key (never the key itself), for
   * URLs that carry their own permission (upload-credentials.ts). Every instance sharing the keys agrees.
   */
  sign(purpose: string, message: string): string {
    return this.#mac(this.#primaryId, purpose, message).toString('base64url');
  }

  /**
   * Whether `signature` is `sign(purpose, message)` under any configured key, compared in constant
   * time: a URL signed just before a new primary key was configured keeps working until it expires,
   * as long as the old key is still configured beside it (as rotation requires).
   */
  verify(purpose: string, message: string, signature: string): boolean {
    const given = Buffer.from(signature, 'base64url');
    // Only the canonical spelling: another text that decodes to the same bytes is refused.
    if (given.toString('base64url') !== signature) return false;
    let valid = false;
    for (const keyId of this.#keys.keys()) {
      const expected = this.#mac(keyId, purpose, message);
      if (given.length === expected.length && timingSafeEqual(given, expected)) valid = true;
    }
    return valid;
  }

  decryptBytes(ciphertext: string, associatedData: string): Buffer {
    const parts = ciphertext.split(':');
    if (parts.length !== 3 || parts[0] !== VERSION) throw new DecryptionError('unrecognised ciphertext format');
    const [, keyId, encoded] = parts as [string, string, string];
    return this.open(keyId, Buffer.from(encoded, 'base64'), associatedData);
  }

  /** The ciphertext prefix of values sealed with the primary key (rotation skips those). */
  get primaryPrefix(): string {
    return `${VERSION}:${this.#primaryId}:`;
  }

  // A keyring that ends up in a log line or an error dump shows key ids, never key material.
  toJSON() {
    return { keyIds: this.keyIds };
  }

  [inspect.custom]() {
    return `Keyring(${this.keyIds.join(', ')})`;
  }
}
