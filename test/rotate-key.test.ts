// Key rotation: the service behind `hangar rotate-key`, on both databases, and the command itself.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'node:test';
import { createServices } from '../src/services.ts';
import { DecryptionError, Keyring, keyIdOf } from '../src/crypto/keyring.ts';
import { KEY_FILE, parseEncryptionKeys, readOrCreateKeyFile } from '../src/crypto/keys.ts';
import { POSTGRES_URL, suite, type TestContext } from './helpers/harness.ts';
import { createParameter, createPolicySet } from './helpers/policy-sets.ts';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

/** The keys the test app was started with (configured, or generated into its data dir). */
function appKeys(ctx: TestContext): Buffer[] {
  return ctx.config.encryptionKeys ? parseEncryptionKeys(ctx.config.encryptionKeys) : [readOrCreateKeyFile(path.join(ctx.config.dataDir, KEY_FILE))];
}

/** `hangar …` in a child process, with only the environment given (never the test's own). */
function hangar(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HANGAR_LOG_LEVEL: 'silent', HANGAR_PORT: '0', ...env },
    encoding: 'utf8',
    // A bound, not a pace: a command on a loaded CI machine has taken over 20 s to start.
    timeout: 120_000,
  });
}

async function seed(ctx: TestContext, count: number) {
  const org = await ctx.organization();
  const set = await createPolicySet(ctx, org);
  const values = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const value = `rotating-${i}-${randomBytes(6).toString('hex')}`;
    const p = await createParameter(ctx, org.owner.token, set.id, { key: `s${i}`, value, sensitive: true });
    values.set(p.id, value);
  }
  await createParameter(ctx, org.owner.token, set.id, { key: 'plain', value: 'not encrypted' });
  return { setId: set.id, values };
}

async function ciphertexts(ctx: TestContext): Promise<string[]> {
  const rows = await ctx.database.db.selectFrom('policy_set_parameters').select('encrypted_value').where('sensitive', '=', true).execute();
  return rows.map((r) => r.encrypted_value ?? '');
}

suite('rotate-key', (ctx) => {
  it('re-encrypts every sensitive value with the first key, in batches, and is idempotent', async () => {
    const { setId, values } = await seed(ctx, 5);
    const old = appKeys(ctx);
    const fresh = randomBytes(32);
    const rotating = createServices(ctx.database, { keyring: new Keyring([fresh, ...old]) }).policySetParameters;

    const result = await rotating.rotateEncryption({ batchSize: 2 });
    assert.equal(result.keyId, keyIdOf(fresh));
    assert.equal(result.reencrypted, 5);
    for (const c of await ciphertexts(ctx)) assert.ok(c.startsWith(`v1:${keyIdOf(fresh)}:`), c);
    assert.deepEqual(await rotating.rotateEncryption({ batchSize: 2 }), { reencrypted: 0, keyId: keyIdOf(fresh) });

    // The old key can now be dropped: the new one alone reads everything, the old one nothing.
    const onlyNew = createServices(ctx.database, { keyring: new Keyring([fresh]) }).policySetParameters;
    const read = await onlyNew.runtimeParameters(setId);
    for (const [id, value] of values) assert.equal(read.find((p) => p.id === id)?.value, value);
    assert.equal(read.find((p) => p.key === 'plain')?.value, 'not encrypted');
    const onlyOld = createServices(ctx.database, { keyring: new Keyring(old) }).policySetParameters;
    await assert.rejects(onlyOld.runtimeParameters(setId), DecryptionError);
  });

  it("re-seals SSH keys too, and the workspace's runs still get the key with the new key alone", async () => {
    const org = await ctx.organization();
    const value = `-----BEGIN OPENSSH PRIVATE KEY-----\nrotating-ssh-${randomBytes(6).toString('hex')}\n-----END OPENSSH PRIVATE KEY-----\n`;
    const made = await ctx.post(`/api/v2/organizations/${org.name}/ssh-keys`, org.owner.token, {
      data: { type: 'ssh-keys', attributes: { name: 'k', value } },
    });
    assert.equal(made.status, 201, made.raw);
    const ws = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, {
      data: { type: 'workspaces', attributes: { name: 'rotating' } },
    });
    const assigned = await ctx.patch(`/api/v2/workspaces/${ws.body.data.id}/relationships/ssh-key`, org.owner.token, {
      data: { type: 'workspaces', attributes: { id: made.body.data.id } },
    });
    assert.equal(assigned.status, 200, assigned.raw);
    const old = appKeys(ctx);
    const fresh = randomBytes(32);
    const rotating = createServices(ctx.database, { keyring: new Keyring([fresh, ...old]) }).sshKeys;
    assert.ok((await rotating.rotateEncryption({ batchSize: 1 })).reencrypted >= 1);
    assert.equal((await rotating.rotateEncryption()).reencrypted, 0);
    const row = await ctx.database.db.selectFrom('ssh_keys').select('encrypted_value').where('id', '=', made.body.data.id).executeTakeFirstOrThrow();
    assert.ok(row.encrypted_value.startsWith(`v1:${keyIdOf(fresh)}:`), row.encrypted_value);
    assert.equal(await createServices(ctx.database, { keyring: new Keyring([fresh]) }).sshKeys.forRun(ws.body.data.id), value);
    await assert.rejects(createServices(ctx.database, { keyring: new Keyring(old) }).sshKeys.forRun(ws.body.data.id), DecryptionError);
  });

  it('stops with an error naming the parameter when a value was sealed with a key it does not have', async () => {
    const { values } = await seed(ctx, 1);
    const [id] = [...values.keys()];
    const stranger = createServices(ctx.database, { keyring: new Keyring([randomBytes(32)]) }).policySetParameters;
    await assert.rejects(stranger.rotateEncryption(), (e: unknown) => {
      assert.ok(e instanceof DecryptionError);
      assert.ok(!e.message.includes(values.get(id!)!));
      return /parameter var-/.test(e.message);
    });
  });
});

// A database of its own: the suite above leaves values sealed with keys nobody holds any more.
suite('the hangar command', (ctx) => {
  it('runs `hangar rotate-key`', { skip: ctx.dialect !== 'sqlite' && 'the command is driven through a SQLite file here' }, async () => {
    const { setId, values } = await seed(ctx, 3);
    const old = appKeys(ctx);
    const fresh = randomBytes(32);
    const run = hangar(['rotate-key', '--batch-size', '2'], {
      HANGAR_DATA_DIR: ctx.dataDir,
      HANGAR_DATABASE_URL: ctx.config.databaseUrl,
      HANGAR_ENCRYPTION_KEY: [fresh, ...old].map((k) => k.toString('base64')).join(','),
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`re-encrypted \\d+ sensitive value\\(s\\) with key ${keyIdOf(fresh)}`));
    for (const value of values.values()) assert.ok(!run.stderr.includes(value) && !run.stdout.includes(value));
    for (const c of await ciphertexts(ctx)) assert.ok(c.startsWith(`v1:${keyIdOf(fresh)}:`));
    const read = await createServices(ctx.database, { keyring: new Keyring([fresh]) }).policySetParameters.runtimeParameters(setId);
    for (const [id, value] of values) assert.equal(read.find((p) => p.id === id)?.value, value);

    const bad = hangar(['rotate-key', '--batch-size', '0'], { HANGAR_DATA_DIR: ctx.dataDir, HANGAR_DATABASE_URL: ctx.config.databaseUrl });
    assert.equal(bad.status, 2);
  });

  it('refuses to serve PostgreSQL without HANGAR_ENCRYPTION_KEY, or with a malformed key', { skip: ctx.dialect !== 'postgres' && 'needs PostgreSQL' }, () => {
    const missing = hangar(['serve'], { HANGAR_DATA_DIR: ctx.dataDir, HANGAR_DATABASE_URL: POSTGRES_URL! });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /configuration error: HANGAR_ENCRYPTION_KEY is required with PostgreSQL/);
    const malformed = 'definitely-not-a-key';
    const bad = hangar(['serve'], { HANGAR_DATA_DIR: ctx.dataDir, HANGAR_DATABASE_URL: POSTGRES_URL!, HANGAR_ENCRYPTION_KEY: malformed });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /configuration error: HANGAR_ENCRYPTION_KEY: key number 1/);
    assert.ok(!bad.stderr.includes(malformed));
  });
});
