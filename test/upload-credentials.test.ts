// The credential that state and configuration upload URLs carry instead of a token: signed,
// expiring, bound to one purpose and one subject; anything else is the same 404.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { Keyring } from '../src/crypto/keyring.ts';
import { checkUploadCredential, issueUploadCredential, uploadUsedUp } from '../src/crypto/upload-credentials.ts';
import { ApiError } from '../src/jsonapi/errors.ts';

const key = randomBytes(32);
const ring = new Keyring([key]);
const AT = Date.UTC(2026, 0, 1);
const TTL = 10 * 60_000;

/** Whether the check lets the credential through; any refusal must be the plain 404. */
function accepted(
  credential: string,
  options: { keyring?: Keyring; purpose?: 'state-upload' | 'configuration-upload'; subject?: string; at?: number } = {},
): boolean {
  try {
    checkUploadCredential(options.keyring ?? ring, options.purpose ?? 'configuration-upload', options.subject ?? 'cv-1', credential, options.at ?? AT + 1);
    return true;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.status, 404);
    assert.deepEqual(e.errors, [{ status: '404', title: 'not found' }], 'a refusal says nothing of why');
    return false;
  }
}

describe('upload credentials', () => {
  const credential = issueUploadCredential(ring, 'configuration-upload', 'cv-1', TTL, AT);

  it('are `<expiry>.<signature>`, with nothing in them that needs escaping in a URL', () => {
    assert.match(credential, /^\d+\.[A-Za-z0-9_-]{43}$/);
    assert.equal(credential.split('.')[0], String(AT + TTL));
    assert.equal(encodeURIComponent(credential), credential);
  });

  it('check out for their purpose and subject until they expire, on any instance holding the key', () => {
    assert.ok(accepted(credential));
    assert.ok(accepted(credential, { at: AT + TTL - 1 }));
    assert.ok(accepted(credential, { keyring: new Keyring([Buffer.from(key)]) }));
  });

  it('issued before a new key was put first, check out while the old key is still configured', () => {
    const fresh = randomBytes(32);
    assert.ok(accepted(credential, { keyring: new Keyring([fresh, key]) }));
    assert.ok(!accepted(credential, { keyring: new Keyring([fresh]) }));
    // New credentials are signed with the new first key, which the old keyring alone refuses.
    const rotated = issueUploadCredential(new Keyring([fresh, key]), 'configuration-upload', 'cv-1', TTL, AT);
    assert.notEqual(rotated, credential);
    assert.ok(accepted(rotated, { keyring: new Keyring([fresh]) }));
    assert.ok(!accepted(rotated));
  });

  it('expire: from the expiry on they are refused', () => {
    assert.ok(!accepted(credential, { at: AT + TTL }));
    assert.ok(!accepted(credential, { at: AT + TTL + 1 }));
  });

  it('are refused when tampered with: the signature, or an expiry moved later', () => {
    const [expires, signature] = credential.split('.') as [string, string];
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    assert.ok(!accepted(`${expires}.${flipped}`));
    assert.ok(!accepted(`${Number(expires) + 3_600_000}.${signature}`));
    for (const malformed of [
      '',
      '.',
      expires,
      `${expires}.`,
      `.${signature}`,
      `${expires}.${signature}.x`,
      `${expires}.${signature.slice(1)}`,
      `-1.${signature}`,
      `${expires}.${signature} `,
    ]) {
      assert.ok(!accepted(malformed), JSON.stringify(malformed));
    }
  });

  it('are refused for another subject, another purpose, or under another key', () => {
    assert.ok(!accepted(credential, { subject: 'cv-2' }));
    assert.ok(!accepted(credential, { subject: 'cv-1:' }));
    assert.ok(!accepted(credential, { purpose: 'state-upload' }));
    assert.ok(!accepted(credential, { keyring: new Keyring([randomBytes(32)]) }));
    // A state file's credential opens neither the JSON state's nor the same id's configuration upload.
    const state = issueUploadCredential(ring, 'state-upload', 'sv-1:state', TTL, AT);
    assert.ok(accepted(state, { purpose: 'state-upload', subject: 'sv-1:state' }));
    assert.ok(!accepted(state, { purpose: 'state-upload', subject: 'sv-1:json-state' }));
    assert.ok(!accepted(state, { purpose: 'configuration-upload', subject: 'sv-1:state' }));
  });

  it('name a used URL with a 409 that does not echo the credential', () => {
    const used = uploadUsedUp();
    assert.equal(used.status, 409);
    assert.ok(!JSON.stringify(used.errors).includes(credential));
  });
});
