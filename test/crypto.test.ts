import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { buildApp } from '../src/app.ts';
import { ConfigError } from '../src/config.ts';
import { DecryptionError, Keyring, keyIdOf } from '../src/crypto/keyring.ts';
import { KEY_FILE, loadKeyring, parseEncryptionKeys } from '../src/crypto/keys.ts';
import { createServices } from '../src/services.ts';
import { suite } from './helpers/harness.ts';
import { createParameter, createPolicySet } from './helpers/policy-sets.ts';

const key = () => randomBytes(32);

describe('keyring', () => {
  it('round-trips values, with a fresh nonce every time', () => {
    const ring = new Keyring([key()]);
    for (const text of ['', 'plain', 'ünïcödé ✓', 'x'.repeat(10_000)]) assert.equal(ring.decrypt(ring.encrypt(text, 'var-1'), 'var-1'), text);
    const a = ring.encrypt('same', 'var-1');
    const b = ring.encrypt('same', 'var-1');
    assert.notEqual(a, b);
    const nonce = (c: string) => Buffer.from(c.split(':')[2]!, 'base64').subarray(0, 12).toString('hex');
    assert.notEqual(nonce(a), nonce(b));
    assert.match(a, new RegExp(`^v1:${ring.primaryKeyId}:`));
  });

  it('refuses the wrong associated data, tampered text, unknown keys and unknown formats', () => {
    const ring = new Keyring([key()]);
    const sealed = ring.encrypt('secret value', 'var-A');
    assert.throws(() => ring.decrypt(sealed, 'var-B'), DecryptionError);
    const raw = Buffer.from(sealed.split(':')[2]!, 'base64');
    raw[14] = raw[14]! ^ 1;
    assert.throws(() => ring.decrypt(`v1:${ring.primaryKeyId}:${raw.toString('base64')}`, 'var-A'), DecryptionError);
    const stranger = new Keyring([key()]);
    assert.throws(
      () => stranger.decrypt(sealed, 'var-A'),
      (e: unknown) => e instanceof DecryptionError && e.message.includes(ring.primaryKeyId),
    );
    assert.throws(() => ring.decrypt('v2:abc:def', 'var-A'), DecryptionError);
    assert.throws(() => ring.decrypt(`v1:${ring.primaryKeyId}:AAAA`, 'var-A'), DecryptionError);
  });

  it('decrypts with any configured key and encrypts with the first', () => {
    const oldKey = key();
    const newKey = key();
    const sealedOld = new Keyring([oldKey]).encrypt('v', 'var-1');
    const both = new Keyring([newKey, oldKey]);
    assert.equal(both.decrypt(sealedOld, 'var-1'), 'v');
    assert.equal(both.primaryKeyId, keyIdOf(newKey));
    assert.deepEqual(both.keyIds, [keyIdOf(newKey), keyIdOf(oldKey)]);
    assert.ok(both.encrypt('v', 'var-1').startsWith(both.primaryPrefix));
    assert.throws(() => new Keyring([]), Error);
    assert.throws(() => new Keyring([randomBytes(16)]), Error);
  });

  it('never shows key material when serialised or inspected', () => {
    const k = key();
    const ring = new Keyring([k]);
    for (const text of [JSON.stringify(ring), JSON.stringify({ ring }), inspect(ring, { showHidden: true, depth: 5 }), String(ring)]) {
      assert.ok(!text.includes(k.toString('base64')) && !text.includes(k.toString('hex')), text);
    }
    assert.ok(JSON.stringify(ring).includes(ring.primaryKeyId));
  });
});

describe('HANGAR_ENCRYPTION_KEY', () => {
  it('takes comma-separated base64 keys of 32 bytes', () => {
    const [a, b] = [key(), key()];
    const parsed = parseEncryptionKeys(` ${a.toString('base64')} ,${b.toString('base64url')}`);
    assert.deepEqual(
      parsed.map((k) => k.toString('hex')),
      [a.toString('hex'), b.toString('hex')],
    );
  });

  it('refuses anything else with a message that names the variable but not the value', () => {
    const good = key().toString('base64');
    for (const raw of ['', ',', `${good},not-a-key!`, `${good},${randomBytes(16).toString('base64')}`, randomBytes(33).toString('base64')]) {
      assert.throws(
        () => parseEncryptionKeys(raw),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError);
          assert.match(e.message, /HANGAR_ENCRYPTION_KEY/);
          for (const part of raw.split(',').filter((p) => p.length > 3)) assert.ok(!e.message.includes(part), e.message);
          return true;
        },
      );
    }
  });
});

describe('loading keys at start-up', () => {
  it('generates a key file with mode 0600 for SQLite and reuses it', () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'hangar-keys-')), 'nested');
    try {
      const first = loadKeyring({ encryptionKeys: null, dataDir }, 'sqlite');
      const file = path.join(dataDir, KEY_FILE);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length, 32);
      const again = loadKeyring({ encryptionKeys: null, dataDir }, 'sqlite');
      assert.equal(again.primaryKeyId, first.primaryKeyId);
      assert.equal(again.decrypt(first.encrypt('v', 'var-1'), 'var-1'), 'v');
      // No temporary files are left behind.
      assert.deepEqual(readdir(dataDir), [KEY_FILE]);
      writeFileSync(file, 'garbage\n');
      assert.throws(() => loadKeyring({ encryptionKeys: null, dataDir }, 'sqlite'), ConfigError);
    } finally {
      rmSync(path.dirname(dataDir), { recursive: true, force: true });
    }
  });

  it('requires HANGAR_ENCRYPTION_KEY with PostgreSQL and writes no key file', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-keys-'));
    try {
      assert.throws(
        () => loadKeyring({ encryptionKeys: null, dataDir }, 'postgres'),
        (e: unknown) => {
          assert.ok(e instanceof ConfigError);
          assert.match(e.message, /HANGAR_ENCRYPTION_KEY is required with PostgreSQL/);
          return true;
        },
      );
      assert.equal(existsSync(path.join(dataDir, KEY_FILE)), false);
      const k = key();
      const ring = loadKeyring({ encryptionKeys: k.toString('base64'), dataDir }, 'postgres');
      assert.equal(ring.primaryKeyId, keyIdOf(k));
      // A configured key wins over a generated one, for SQLite too.
      assert.equal(loadKeyring({ encryptionKeys: k.toString('base64'), dataDir }, 'sqlite').primaryKeyId, keyIdOf(k));
      assert.equal(existsSync(path.join(dataDir, KEY_FILE)), false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const readdir = (dir: string) => readdirSync(dir).sort();

suite('encryption keys in the app', (ctx) => {
  it('builds the app with the key its database needs', async () => {
    const file = path.join(ctx.dataDir, KEY_FILE);
    if (ctx.dialect === 'sqlite') {
      // The harness left HANGAR_ENCRYPTION_KEY unset: the app generated its own key.
      assert.equal(statSync(file).mode & 0o777, 0o600);
    } else {
      assert.equal(existsSync(file), false);
      await assert.rejects(buildApp({ config: { ...ctx.config, encryptionKeys: null }, database: ctx.database, logger: false }), ConfigError);
    }
    await assert.rejects(buildApp({ config: { ...ctx.config, encryptionKeys: 'short' }, database: ctx.database, logger: false }), ConfigError);
  });

  it('reads values written before a restart with the same key', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const p = await createParameter(ctx, org.owner.token, set.id, { key: 'k', value: 'kept across restarts', sensitive: true });
    // What a restarted process does: keys from the configuration, then services, then the app.
    const services = createServices(ctx.database, { keyring: loadKeyring(ctx.config, ctx.database.dialect) });
    const restarted = await buildApp({ config: ctx.config, database: ctx.database, logger: false, services });
    try {
      const [value] = await services.policySetParameters.runtimeParameters(set.id);
      assert.deepEqual([value!.id, value!.value], [p.id, 'kept across restarts']);
    } finally {
      await restarted.close();
    }
  });
});
