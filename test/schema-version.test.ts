// An older Hangar on a database a newer one migrated: it refuses to start (server and CLI), naming
// the migrations it does not know and its own version, and /readyz on a running one says why.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { LATEST_MIGRATION, migrateToLatest, SchemaTooNewError } from '../src/db/migrate.ts';
import { VERSION } from '../src/ops/version.ts';
import { dialects, TestContext } from './helpers/harness.ts';
import { hangarAsync } from './helpers/process.ts';

const FUTURE = '9999_from_a_newer_hangar';

for (const dialect of dialects()) {
  describe(`a database schema newer than this build (${dialect})`, () => {
    const ctx = new TestContext(dialect);
    before(async () => {
      await ctx.start();
      await sql`insert into kysely_migration (name, timestamp) values (${FUTURE}, ${new Date().toISOString()})`.execute(ctx.database.db);
    });
    after(() => ctx.stop());

    it("migrating refuses, naming the unknown migration and this build's latest", async () => {
      await assert.rejects(migrateToLatest(ctx.database), (e: unknown) => {
        assert.ok(e instanceof SchemaTooNewError);
        assert.deepEqual(e.unknown, [FUTURE]);
        assert.match(e.message, new RegExp(`${FUTURE} is newer .*latest ${LATEST_MIGRATION}`));
        return true;
      });
    });

    it('/readyz answers 503 with the reason', async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(JSON.parse(res.body), { status: 'unavailable', reason: 'the database schema is newer than this Hangar knows' });
    });

    it('`hangar serve` and `hangar bootstrap` exit 1 with one line naming both versions', async () => {
      const env = {
        HANGAR_DATA_DIR: ctx.dataDir,
        HANGAR_DATABASE_URL: ctx.config.databaseUrl,
        HANGAR_PORT: '0',
        ...(ctx.config.encryptionKeys ? { HANGAR_ENCRYPTION_KEY: ctx.config.encryptionKeys } : {}),
      };
      const expected = `error: database schema ${FUTURE} is newer than this Hangar ${VERSION} knows (latest ${LATEST_MIGRATION}); upgrade Hangar`;
      for (const args of [['serve'], ['bootstrap']]) {
        const r = await hangarAsync(args, env);
        assert.equal(r.status, 1, r.stderr);
        assert.equal(r.stdout, '', 'no token was printed');
        assert.equal(r.stderr.trim().split('\n').at(-1), expected);
        assert.doesNotMatch(r.stderr, /\n\s+at /);
      }
    });
  });
}
