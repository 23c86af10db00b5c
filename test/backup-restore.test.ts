// Back up a running Hangar and restore it into a fresh data directory (SQLite: `hangar backup` and
// `hangar restore`; PostgreSQL: the pg_dump / pg_restore commands they print): every project,
// state version and sealed value is readable in the restored installation.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp, type Api } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { KEY_FILE, openKeyring } from '../src/crypto/keys.ts';
import { openDatabase, type Database } from '../src/db/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { holdServeLock } from '../src/ops/serve-lock.ts';
import { createServices, type Services } from '../src/services.ts';
import { dialects, POSTGRES_URL, TestContext } from './helpers/harness.ts';
import { createParameter, createPolicySet } from './helpers/policy-sets.ts';
import { scratchPostgres } from './helpers/postgres.ts';
import { hangarAsync } from './helpers/process.ts';
import { createProject, createWorkspace } from './helpers/projects.ts';
import { createStateVersion, stateFile } from './helpers/state.ts';

/** An installation on `config`, as `hangar serve` would open it. */
async function open(config: Config): Promise<{ app: Api; database: Database; services: Services }> {
  const database = openDatabase(config.databaseUrl);
  await migrateToLatest(database);
  const services = createServices(database, { keyring: await openKeyring(config, database) });
  const app = await buildApp({ config, database, services, logger: false });
  return { app, database, services };
}

const SECRET = 'backup-restore-sensitive-value';

for (const dialect of dialects()) {
  describe(`backup and restore (${dialect})`, () => {
    const ctx = new TestContext(dialect);
    const scratch = mkdtempSync(path.join(tmpdir(), 'hangar-backup-'));
    const file = path.join(scratch, dialect === 'sqlite' ? 'hangar-backup.db' : 'hangar.dump');
    const fresh = path.join(scratch, 'restored');
    const cleanups: Array<() => Promise<void>> = [];
    let org: Awaited<ReturnType<TestContext['organization']>>;
    const made = { projects: [] as string[], workspace: '', stateVersion: '', state: stateFile({ serial: 1 }), policySet: '' };
    before(async () => {
      await ctx.start();
      org = await ctx.organization();
      for (let i = 0; i < 3; i++) made.projects.push((await createProject(ctx, org)).id);
      made.workspace = (await createWorkspace(ctx, org, made.projects[0])).id;
      made.stateVersion = (await createStateVersion(ctx, made.workspace, org.owner.token, made.state, 1)).id;
      made.policySet = (await createPolicySet(ctx, org)).id;
      await createParameter(ctx, org.owner.token, made.policySet, { key: 'secret', value: SECRET, sensitive: true });
    });
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
      await ctx.stop();
      rmSync(scratch, { recursive: true, force: true });
    });

    const sourceEnv = () => ({
      HANGAR_DATA_DIR: ctx.dataDir,
      HANGAR_DATABASE_URL: ctx.config.databaseUrl,
      ...(ctx.config.encryptionKeys ? { HANGAR_ENCRYPTION_KEY: ctx.config.encryptionKeys } : {}),
    });
    let restoredEnv: Record<string, string>;

    it('backs up while the server is serving, and says which database it read', async () => {
      // Writes go on during the backup: the copy is a consistent snapshot all the same.
      const writes = Promise.all(Array.from({ length: 5 }, () => createProject(ctx, org)));
      const r = await hangarAsync(['backup', file], sourceEnv());
      await writes;
      if (dialect === 'sqlite') {
        assert.equal(r.status, 0, r.stderr);
        const source = ctx.config.databaseUrl.slice('sqlite:'.length);
        assert.match(r.stderr, new RegExp(`^database: sqlite ${source}$`, 'm'));
        assert.equal(statSync(file).mode & 0o777, 0o600, 'the backup is private');
        assert.equal(statSync(`${file}.key`).mode & 0o777, 0o600, 'the generated key is copied beside it, private');
        assert.match(r.stderr, /encryption key: copied to .*\.key; store it apart from the backup/);
        // It never overwrites.
        const again = await hangarAsync(['backup', file], sourceEnv());
        assert.equal(again.status, 1);
        assert.match(again.stderr, /already exists; a backup never overwrites/);
      } else {
        // PostgreSQL: Hangar prints the pg_dump command for the configured database; run it.
        assert.equal(r.status, 1, 'no backup was made by Hangar itself');
        assert.match(r.stderr, /encryption key: keep HANGAR_ENCRYPTION_KEY/);
        const command = r.stdout.trim();
        assert.match(command, /^pg_dump --format=custom /);
        const dump = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
        assert.equal(dump.status, 0, dump.stderr);
      }
    });

    it('restores into a fresh data directory, saying which database it wrote', async () => {
      if (dialect === 'sqlite') {
        restoredEnv = { HANGAR_DATA_DIR: fresh };
      } else {
        const target = await scratchPostgres(POSTGRES_URL!, 'hangar_restored');
        cleanups.push(() => target.drop());
        restoredEnv = { HANGAR_DATA_DIR: fresh, HANGAR_DATABASE_URL: target.url, HANGAR_ENCRYPTION_KEY: ctx.config.encryptionKeys! };
      }
      const r = await hangarAsync(['restore', file], restoredEnv);
      if (dialect === 'sqlite') {
        assert.equal(r.status, 0, r.stderr);
        assert.match(r.stderr, new RegExp(`^database: sqlite ${path.join(fresh, 'hangar.db')}$`, 'm'));
        assert.match(r.stderr, /encryption key: restored from .* to .*encryption\.key/);
        assert.match(r.stderr, /every sealed value names a key this installation holds/);
        assert.ok(existsSync(path.join(fresh, KEY_FILE)));
      } else {
        assert.equal(r.status, 1);
        const command = r.stdout.trim();
        assert.match(command, /^pg_restore /);
        const restored = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
        assert.equal(restored.status, 0, restored.stderr);
      }
    });

    it('the restored installation serves every project, state version and sealed value', async () => {
      const config = loadConfig({ ...restoredEnv, HANGAR_RATE_LIMIT: '0' });
      const restored = await open(config);
      cleanups.push(async () => {
        await restored.app.close();
        await restored.database.close();
      });
      const get = async (url: string) => {
        const res = await restored.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${org.owner.token}` } });
        assert.equal(res.statusCode, 200, res.body);
        return res;
      };
      const projects = JSON.parse((await get(`/api/v2/organizations/${org.name}/projects?page[size]=100`)).body).data.map((p: { id: string }) => p.id);
      for (const id of made.projects) assert.ok(projects.includes(id), id);
      const version = JSON.parse((await get(`/api/v2/state-versions/${made.stateVersion}`)).body).data;
      const download = new URL(version.attributes['hosted-state-download-url']);
      const state = await restored.app.inject({
        method: 'GET',
        url: download.pathname + download.search,
        headers: { authorization: `Bearer ${org.owner.token}` },
      });
      assert.equal(state.statusCode, 200);
      assert.deepEqual(state.rawPayload, made.state, 'the sealed state file opens with the restored key');
      const parameters = await restored.services.policySetParameters.runtimeParameters(made.policySet);
      assert.equal(parameters.find((p) => p.key === 'secret')?.value, SECRET, 'the sensitive parameter opens with the restored key');
      // And the API still never shows it.
      assert.ok(!(await get(`/api/v2/policy-sets/${made.policySet}/parameters`)).body.includes(SECRET));
    });

    it('restore refuses an existing database without --force, and a running server even with it', { skip: dialect !== 'sqlite' && 'SQLite only' }, async () => {
      const r = await hangarAsync(['restore', file], restoredEnv);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /hangar\.db already exists; pass --force to replace it/);
      // A server on the target holds its lock; this test process takes it the same way.
      holdServeLock(loadConfig(restoredEnv));
      const forced = await hangarAsync(['restore', file, '--force'], restoredEnv);
      assert.equal(forced.status, 1);
      assert.match(forced.stderr, /another Hangar server is already serving .*hangar\.db .*; stop it before restoring/);
    });
  });
}
