// Passwords: scrypt hashes that carry their salt and parameters, verified in constant time, and
// `hangar user password NAME` reading the new one from standard input, on both databases.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { hashPassword, needsRehash, passwordProblem, SCRYPT, verifyPassword } from '../src/auth/passwords.ts';
import { openDatabase } from '../src/db/index.ts';
import { loadConfig } from '../src/config.ts';
import { createServices } from '../src/services.ts';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { databaseEnv, hangar } from './helpers/process.ts';

describe('password hashes', () => {
  it('are scrypt with a fresh salt and the parameters stored beside them', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    assert.match(a, new RegExp(`^scrypt\\$${SCRYPT.N}\\$${SCRYPT.r}\\$${SCRYPT.p}\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
    assert.notEqual(a, b, 'each hash has its own salt');
    assert.ok(!a.includes('correct'));
    assert.equal(await verifyPassword(a, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(b, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(a, 'correct horse battery stapl'), false);
    assert.equal(await verifyPassword(a, ''), false);
    assert.equal(needsRehash(a), false);
  });

  it('verify with the parameters they were made with, so the parameters can be raised later', async () => {
    // A hash made with N = 2^14: still verifies, and asks to be replaced.
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const key = scryptSync('an older password', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const old = ['scrypt', 2 ** 14, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    assert.equal(await verifyPassword(old, 'an older password'), true);
    assert.equal(needsRehash(old), true);
  });

  it('refuse what is not a hash, or would cost too much to check, without trying it', async () => {
    assert.equal(await verifyPassword(null, 'anything at all'), false);
    assert.equal(await verifyPassword('plain text', 'plain text'), false);
    const salt = Buffer.alloc(16).toString('base64');
    // Tried, N = 2^30 would need a terabyte (scrypt would throw): refused, it answers false.
    assert.equal(await verifyPassword(`scrypt$${2 ** 30}$8$1$${salt}$${salt}`, 'x'), false);
    assert.equal(await verifyPassword(`scrypt$1000$8$1$${salt}$${salt}`, 'x'), false);
  });

  it('are made only of passwords neither empty nor short', () => {
    assert.match(passwordProblem('')!, /empty/);
    assert.match(passwordProblem('short')!, /too short/);
    assert.match(passwordProblem('x'.repeat(2000))!, /too long/);
    assert.equal(passwordProblem('twelve chars'), null);
  });
});

for (const dialect of dialects()) {
  describe(`hangar user password [${dialect}]`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-password-'));
    let env: Record<string, string>;
    let cleanup = async () => {};
    before(async () => {
      const db = await databaseEnv(dialect, dataDir, POSTGRES_URL);
      env = db.env;
      cleanup = db.cleanup;
      assert.equal(hangar(['user', 'create', 'alice', '--email', 'alice@example.test'], env).status, 0);
    });
    after(async () => {
      await cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function check(username: string, password: string) {
      const database = openDatabase(loadConfig({ ...env }).databaseUrl);
      try {
        return await createServices(database).users.checkPassword(username, password);
      } finally {
        await database.close();
      }
    }

    it('reads the new password from standard input and says which database it wrote', async () => {
      const secret = 'a long enough secret  ';
      const r = hangar(['user', 'password', 'alice'], env, `${secret}\n`);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, dialect === 'sqlite' ? /^database: sqlite .*hangar\.db$/m : /^database: postgres 127\.0\.0\.1:5432\/hangar_proc\w*$/m);
      assert.match(r.stderr, /password set for alice/);
      assert.ok(!r.stderr.includes(secret) && !r.stdout.includes(secret), 'the password is never printed');
      // Everything on the line is the password, surrounding spaces included.
      assert.equal((await check('alice', secret))?.username, 'alice');
      assert.equal(await check('alice', secret.trim()), undefined);
      assert.equal(await check('ALICE', secret).then((u) => u?.username), 'alice');
      // A new one replaces it.
      assert.equal(hangar(['user', 'password', 'alice'], env, 'another long password').status, 0);
      assert.equal(await check('alice', secret), undefined);
      assert.equal((await check('alice', 'another long password'))?.username, 'alice');
    });

    it('refuses empty and short passwords and unknown users, and changes nothing', async () => {
      for (const input of ['', '\n', 'short\n']) {
        const r = hangar(['user', 'password', 'alice'], env, input);
        assert.equal(r.status, 1, `${JSON.stringify(input)}: ${r.stderr}`);
        assert.match(r.stderr, /password is (empty|too short)/);
      }
      const unknown = hangar(['user', 'password', 'nobody'], env, 'a long enough secret\n');
      assert.equal(unknown.status, 1);
      assert.match(unknown.stderr, /no user named nobody/);
      assert.equal((await check('alice', 'another long password'))?.username, 'alice');
      assert.equal(await check('nobody', 'a long enough secret'), undefined);
    });
  });
}
