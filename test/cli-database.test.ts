// Every `hangar` command that writes says on stderr which database it used: a token printed for a
// database the server does not use is no use, and the operator must be able to tell.
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { POSTGRES_URL } from './helpers/harness.ts';
import { scratchPostgres } from './helpers/postgres.ts';
import { hangarAsync } from './helpers/process.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('CLI commands name their database (sqlite)', () => {
  const dataDir = realpathSync(mkdtempSync(path.join(tmpdir(), 'hangar-cli-db-')));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const line = `database: sqlite ${path.join(dataDir, 'hangar.db')}`;
  const env = { HANGAR_DATA_DIR: dataDir };

  for (const args of [['migrate'], ['bootstrap'], ['user', 'create', 'alice', '--email', 'alice@example.com'], ['token', 'create', 'alice'], ['rotate-key']]) {
    it(`hangar ${args.join(' ')}`, async () => {
      const r = await hangarAsync(args, env);
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stderr.split('\n').includes(line), r.stderr);
      assert.ok(!r.stdout.includes('database:'), 'stdout carries only the result (a token, an id)');
    });
  }

  it('a relative HANGAR_DATA_DIR is shown resolved', async () => {
    const r = await hangarAsync(['migrate'], { HANGAR_DATA_DIR: path.relative(process.cwd(), dataDir) });
    assert.ok(r.stderr.split('\n').includes(line), r.stderr);
  });
});

describe('CLI commands name their database (postgres)', { skip: !POSTGRES_URL && 'needs HANGAR_TEST_POSTGRES_URL' }, () => {
  it('host, port and database, never the password', async () => {
    const scratch = await scratchPostgres(POSTGRES_URL!, 'hangar_cli');
    try {
      const url = new URL(scratch.url);
      // The test server trusts local connections, so the password is carried but never checked.
      url.password = 'n0t-to-be-printed';
      const r = await hangarAsync(['bootstrap'], { HANGAR_DATABASE_URL: url.toString(), HANGAR_ENCRYPTION_KEY: KEY });
      assert.equal(r.status, 0, r.stderr);
      const expected = `database: postgres ${url.hostname}:${url.port || 5432}${url.pathname}`;
      assert.ok(r.stderr.split('\n').includes(expected), r.stderr);
      assert.ok(!r.stderr.includes('n0t-to-be-printed'));
    } finally {
      await scratch.drop();
    }
  });
});
