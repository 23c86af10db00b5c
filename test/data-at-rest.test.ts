// Secrets at rest: private file modes whatever the umask, no start-up with values sealed by a key
// the server does not hold, and no clear value left behind in SQLite when it becomes sensitive.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { buildApp } from '../src/app.ts';
import { ConfigError } from '../src/config.ts';
import { keyIdOf } from '../src/crypto/keyring.ts';
import { KEY_FILE, parseEncryptionKeys, readOrCreateKeyFile } from '../src/crypto/keys.ts';
import { keyIdsInUse } from '../src/crypto/sealed.ts';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { createParameter, createPolicySet, parameterUpdate } from './helpers/policy-sets.ts';
import { hangarAsync, startServer } from './helpers/process.ts';

const mode = (file: string) => statSync(file).mode & 0o777;

/** Runs `fn` with the most permissive umask, as a careless service manager might set it. */
async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}

describe('file modes of the data directory', () => {
  it('creates the data directory 0700 and hangar.db, its -wal and -shm and encryption.key 0600, whatever the umask', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'hangar-modes-'));
    const dataDir = path.join(root, 'new', 'data');
    try {
      // The server inherits the umask of the process that starts it.
      const server = await withUmask(0, () => startServer({ HANGAR_DATA_DIR: dataDir }));
      try {
        const token = (await hangarAsync(['bootstrap'], { HANGAR_DATA_DIR: dataDir })).stdout.trim();
        assert.equal((await fetch(`${server.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
        assert.equal(mode(dataDir), 0o700);
        assert.equal(mode(path.dirname(dataDir)), 0o700, 'a parent Hangar created too');
        for (const name of ['hangar.db', 'hangar.db-wal', 'hangar.db-shm', KEY_FILE]) assert.equal(mode(path.join(dataDir, name)), 0o600, name);
      } finally {
        await server.stop('SIGKILL');
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('tightens the files an earlier version left readable, and leaves an existing directory as it is', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-modes-'));
    try {
      chmodSync(dataDir, 0o750);
      const first = await startServer({ HANGAR_DATA_DIR: dataDir });
      await first.stop('SIGTERM');
      for (const name of ['hangar.db', 'hangar.db-wal', 'hangar.db-shm', KEY_FILE]) {
        const file = path.join(dataDir, name);
        if (!existsSync(file)) closeSync(openSync(file, 'w'));
        chmodSync(file, 0o644);
      }
      const second = await startServer({ HANGAR_DATA_DIR: dataDir });
      try {
        for (const name of ['hangar.db', 'hangar.db-wal', 'hangar.db-shm', KEY_FILE]) assert.equal(mode(path.join(dataDir, name)), 0o600, name);
        assert.equal(mode(dataDir), 0o750, "the operator's directory keeps its mode");
      } finally {
        await second.stop('SIGKILL');
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** The key the test app sealed its values with. */
function appKey(ctx: TestContext): Buffer {
  return ctx.config.encryptionKeys ? parseEncryptionKeys(ctx.config.encryptionKeys)[0]! : readOrCreateKeyFile(path.join(ctx.dataDir, KEY_FILE));
}

suite('start-up with values sealed by a key it does not hold', (ctx) => {
  it('names the key ids in use', async () => {
    assert.deepEqual(await keyIdsInUse(ctx.database.db), []);
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    await createParameter(ctx, org.owner.token, set.id, { key: 'secret', value: 'sealed', sensitive: true });
    await createParameter(ctx, org.owner.token, set.id, { key: 'plain', value: 'clear' });
    assert.deepEqual(await keyIdsInUse(ctx.database.db), [keyIdOf(appKey(ctx))]);
  });

  it('refuses to start with a configured key that is not the one, naming the missing key id', async () => {
    const id = keyIdOf(appKey(ctx));
    const other = randomBytes(32).toString('base64');
    await assert.rejects(buildApp({ config: { ...ctx.config, encryptionKeys: other }, database: ctx.database, logger: false }), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, new RegExp(`sealed with key id ${id}, which HANGAR_ENCRYPTION_KEY does not hold; add the key`));
      assert.ok(!e.message.includes(other));
      return true;
    });
    // With the old key beside a new one it starts.
    const both = `${other},${appKey(ctx).toString('base64')}`;
    await (await buildApp({ config: { ...ctx.config, encryptionKeys: both }, database: ctx.database, logger: false })).close();
  });

  it(
    'does not generate a new key file over existing ciphertext, and refuses a key file that is not the one',
    { skip: ctx.dialect !== 'sqlite' && 'the key file is for SQLite' },
    async () => {
      const id = keyIdOf(appKey(ctx));
      const lost = mkdtempSync(path.join(tmpdir(), 'hangar-lost-key-'));
      try {
        const config = { ...ctx.config, dataDir: lost, encryptionKeys: null };
        await assert.rejects(buildApp({ config, database: ctx.database, logger: false }), (e: unknown) => {
          assert.ok(e instanceof ConfigError);
          assert.match(e.message, new RegExp(`${KEY_FILE} is missing, but sensitive values in the database are sealed with key id ${id}; restore the file`));
          return true;
        });
        assert.equal(existsSync(path.join(lost, KEY_FILE)), false, 'no key was generated');
        // The process says so in one line and exits.
        const run = await hangarAsync(['serve'], { HANGAR_DATA_DIR: lost, HANGAR_DATABASE_URL: ctx.config.databaseUrl, HANGAR_PORT: '0' });
        assert.equal(run.status, 1, run.stderr);
        assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
        assert.match(run.stderr, new RegExp(`^configuration error: .*${KEY_FILE} is missing.*key id ${id}`));
        assert.equal(existsSync(path.join(lost, KEY_FILE)), false, 'no key was generated');
        // A regenerated file holds another key: refused too, naming both.
        const regenerated = randomBytes(32);
        writeFileSync(path.join(lost, KEY_FILE), `${regenerated.toString('base64')}\n`, { mode: 0o600 });
        await assert.rejects(
          buildApp({ config, database: ctx.database, logger: false }),
          new RegExp(`sealed with key id ${id}, which .*${KEY_FILE} \\(key id ${keyIdOf(regenerated)}\\) does not hold`),
        );
      } finally {
        rmSync(lost, { recursive: true, force: true });
      }
    },
  );
});

/** Every byte SQLite keeps on disk for the database at `url`. */
function sqliteBytes(url: string): Buffer {
  const file = url.slice('sqlite:'.length);
  return Buffer.concat(['', '-wal', '-shm'].filter((s) => existsSync(file + s)).map((s) => readFileSync(file + s)));
}

suite('a value made sensitive', (ctx) => {
  it(
    'leaves no trace of its clear text in the SQLite files',
    { skip: ctx.dialect !== 'sqlite' && 'PostgreSQL keeps old row versions until VACUUM (see docs/operations.md)' },
    async () => {
      const org = await ctx.organization();
      const set = await createPolicySet(ctx, org);
      const kept = `kept-then-sealed-${randomBytes(8).toString('hex')}`;
      const replaced = `replaced-while-sealing-${randomBytes(8).toString('hex')}`;
      const a = await createParameter(ctx, org.owner.token, set.id, { key: unique('a'), value: kept });
      const b = await createParameter(ctx, org.owner.token, set.id, { key: unique('b'), value: replaced });
      assert.ok(sqliteBytes(ctx.config.databaseUrl).includes(kept), 'the clear value was on disk');
      // Sealing the value it holds, and sealing a new value in its place.
      const sealA = await ctx.patch(`/api/v2/policy-sets/${set.id}/parameters/${a.id}`, org.owner.token, parameterUpdate(a.id, { sensitive: true }));
      assert.equal(sealA.status, 200, sealA.raw);
      const sealB = await ctx.patch(
        `/api/v2/policy-sets/${set.id}/parameters/${b.id}`,
        org.owner.token,
        parameterUpdate(b.id, { sensitive: true, value: 'new' }),
      );
      assert.equal(sealB.status, 200, sealB.raw);
      const bytes = sqliteBytes(ctx.config.databaseUrl);
      assert.ok(!bytes.includes(kept), "the sealed value's clear text is gone from the database and its WAL");
      assert.ok(!bytes.includes(replaced), 'the replaced clear text is gone too');
      const [runtime] = (await ctx.services.policySetParameters.runtimeParameters(set.id)).filter((p) => p.id === a.id);
      assert.equal(runtime!.value, kept, 'and the value itself is intact');
    },
  );
});

// The directory is created with the file, in the test above through the server; here directly.
describe('a SQLite file elsewhere', () => {
  it('gets a private directory too when HANGAR_DATABASE_URL names one that does not exist', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'hangar-url-'));
    try {
      mkdirSync(path.join(root, 'srv'), { mode: 0o755 });
      const file = path.join(root, 'srv', 'db', 'hangar.db');
      const run = await withUmask(0, () => hangarAsync(['migrate'], { HANGAR_DATA_DIR: path.join(root, 'data'), HANGAR_DATABASE_URL: `sqlite:${file}` }));
      assert.equal(run.status, 0, run.stderr);
      assert.equal(mode(path.dirname(file)), 0o700);
      assert.equal(mode(path.join(root, 'srv')), 0o755, 'an existing parent is left alone');
      assert.equal(mode(file), 0o600);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
