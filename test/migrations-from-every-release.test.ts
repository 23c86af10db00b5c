// Migrations are forward-only and must carry every earlier schema's data: for each prefix of the
// migration list (the schema of each earlier build), a fresh database is migrated to that point,
// given representative rows in the shape of that schema, migrated to the latest, and the rows are
// read back through the API.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { digestSecret } from '../src/auth/secrets.ts';
import { Keyring } from '../src/crypto/keyring.ts';
import type { Database } from '../src/db/index.ts';
import { MIGRATION_NAMES, migrateToLatest } from '../src/db/migrate.ts';
import { dialects, scratchDatabase } from './helpers/harness.ts';

const DIRECTORY = path.resolve(import.meta.dirname, '../src/db/migrations');
const NOW = '2026-01-02T03:04:05.000Z';
const TOKEN = `${'t'.repeat(14)}.atlasv1.${'s'.repeat(67)}`;
const KEYRING = new Keyring([randomBytes(32)]);
const ARCHIVE = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x73, 0x65, 0x65, 0x64]);
const STATE = Buffer.from(JSON.stringify({ version: 4, serial: 1, lineage: 'seeded-lineage', outputs: {}, resources: [] }));

/** Runs the first `count` migrations of this build's list, as the build that ended there did. */
async function migrateFirst(database: Database, count: number): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const name of MIGRATION_NAMES.slice(0, count)) migrations[name] = await import(path.join(DIRECTORY, `${name}.ts`));
  const schema = database.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(database.db)).rows[0]!.s : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/**
 * Rows for every table the schema has so far, each with only the columns its table had when it
 * was created (later migrations add columns with defaults, or none the old code knew to fill).
 */
async function seed(db: Kysely<any>, has: (migration: string) => boolean): Promise<void> {
  await db
    .insertInto('users')
    .values([
      { id: 'user-seededadmin0001', username: 'seeded-admin', email: 'admin@example.com', is_site_admin: false, is_service_account: false, created_at: NOW },
      { id: 'user-seededservice01', username: 'api-org-seeded', email: 'svc@example.com', is_site_admin: false, is_service_account: true, created_at: NOW },
    ])
    .execute();
  await db
    .insertInto('organizations')
    .values({ id: 'org-seeded0000000001', name: 'seeded', email: 'org@example.com', service_user_id: 'user-seededservice01', created_at: NOW })
    .execute();
  await db
    .insertInto('teams')
    .values({
      id: 'team-seededowners001',
      organization_id: 'org-seeded0000000001',
      name: 'owners',
      visibility: 'secret',
      is_owners: true,
      organization_access: '{}',
      created_at: NOW,
    })
    .execute();
  await db.insertInto('team_memberships').values({ team_id: 'team-seededowners001', user_id: 'user-seededadmin0001', created_at: NOW }).execute();
  await db
    .insertInto('auth_tokens')
    .values({ id: 'at-seededtoken00001', kind: 'user', digest: digestSecret(TOKEN), description: 'seeded', user_id: 'user-seededadmin0001', created_at: NOW })
    .execute();
  await db
    .insertInto('projects')
    .values([
      { id: 'prj-seededdefault001', organization_id: 'org-seeded0000000001', name: 'Default Project', is_default: true, created_at: NOW },
      { id: 'prj-seededplatform01', organization_id: 'org-seeded0000000001', name: 'platform', description: 'seeded', is_default: false, created_at: NOW },
    ])
    .execute();
  if (has('0002_projects_workspaces')) {
    await db
      .insertInto('workspaces')
      .values({
        id: 'ws-seededworkspace01',
        organization_id: 'org-seeded0000000001',
        project_id: 'prj-seededplatform01',
        name: 'network',
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
  }
  if (has('0003_policy_sets')) {
    await db
      .insertInto('policy_sets')
      .values({ id: 'polset-seededpolicy01', organization_id: 'org-seeded0000000001', name: 'guardrails', kind: 'sentinel', created_at: NOW, updated_at: NOW })
      .execute();
    await db
      .insertInto('policy_set_projects')
      .values({ policy_set_id: 'polset-seededpolicy01', project_id: 'prj-seededplatform01', created_at: NOW })
      .execute();
    await db
      .insertInto('policy_set_parameters')
      .values({
        id: 'var-seededparam00001',
        policy_set_id: 'polset-seededpolicy01',
        key: 'region',
        category: 'policy-set',
        sensitive: false,
        value: 'eu-west-1',
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
  }
  if (has('0004_agent_pools')) {
    await db
      .insertInto('agent_pools')
      .values({ id: 'apool-seededpool0001', organization_id: 'org-seeded0000000001', name: 'runners', organization_scoped: true, created_at: NOW })
      .execute();
  }
  if (has('0005_policy_set_workspaces')) {
    await db
      .insertInto('policy_set_workspaces')
      .values({ policy_set_id: 'polset-seededpolicy01', workspace_id: 'ws-seededworkspace01', created_at: NOW })
      .execute();
  }
  if (has('0010_tags')) {
    await db
      .insertInto('workspace_tag_bindings')
      .values({ id: 'tb-seededbinding001', workspace_id: 'ws-seededworkspace01', key: 'env', value: 'prod', position: 0, created_at: NOW })
      .execute();
  }
  if (has('0016_signed_configuration_uploads')) {
    // An uploaded configuration, its archive in its row as releases before 0029 kept it (unsealed).
    await db
      .insertInto('configuration_versions')
      .values({
        id: 'cv-seededconfig0001',
        workspace_id: 'ws-seededworkspace01',
        status: 'uploaded',
        source: 'tfe-api',
        auto_queue_runs: sql`false`,
        speculative: sql`false`,
        provisional: sql`false`,
        archive: ARCHIVE,
        archive_size: ARCHIVE.length,
        created_at: NOW,
        uploaded_at: NOW,
      })
      .execute();
  }
  if (has('0011_state')) {
    // A state file sealed as the state-versions service seals it, with the key the app is given.
    await db
      .insertInto('state_versions')
      .values({
        id: 'sv-seededversion001',
        workspace_id: 'ws-seededworkspace01',
        serial: 1,
        lineage: 'seeded-lineage',
        md5: createHash('md5').update(STATE).digest('hex'),
        status: 'finalized',
        state_size: STATE.length,
        created_by: 'user-seededadmin0001',
        created_at: NOW,
        finalized_at: NOW,
      })
      .execute();
    // Since 0029 in the blob store, the key id beside the raw sealed bytes.
    const sealed = KEYRING.encryptBytes(STATE, 'state-version:sv-seededversion001:state');
    await (has('0029_blobs')
      ? db
          .insertInto('blobs')
          .values({
            family: 'state-versions',
            owner: 'sv-seededversion001',
            name: 'state',
            part: 0,
            key_id: sealed.split(':')[1],
            body: Buffer.from(sealed.split(':')[2]!, 'base64'),
            size: STATE.length,
            created_at: NOW,
          })
          .execute()
      : db
          .insertInto('state_version_blobs')
          .values({ state_version_id: 'sv-seededversion001', kind: 'state', sealed, size: STATE.length, created_at: NOW })
          .execute());
  }
  if (has('0029_blobs')) {
    // The configuration's archive as the blob store keeps it (the row's column an empty marker).
    await db
      .updateTable('configuration_versions')
      .set({ archive: Buffer.alloc(0) })
      .where('id', '=', 'cv-seededconfig0001')
      .execute();
    const { keyId, body } = KEYRING.seal(ARCHIVE, 'blob:configuration-versions/cv-seededconfig0001/archive:0');
    await db
      .insertInto('blobs')
      .values({
        family: 'configuration-versions',
        owner: 'cv-seededconfig0001',
        name: 'archive',
        part: 0,
        key_id: keyId,
        body,
        size: ARCHIVE.length,
        created_at: NOW,
      })
      .execute();
  }
}

/** Every seeded row, read back through the API with the seeded token. */
async function readBack(database: Database, has: (migration: string) => boolean): Promise<void> {
  const config = {
    ...loadConfig({ HANGAR_DATA_DIR: '/nonexistent', HANGAR_RATE_LIMIT: '0', HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64') }),
    databaseUrl: 'unused',
  };
  const app = await buildApp({ config, database, logger: false, keyring: KEYRING });
  try {
    const get = async (url: string) => {
      const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      return JSON.parse(res.body).data;
    };
    assert.equal((await get('/api/v2/account/details')).attributes.username, 'seeded-admin');
    assert.equal((await get('/api/v2/organizations/seeded')).id, 'seeded');
    const projects = await get('/api/v2/organizations/seeded/projects');
    assert.deepEqual(projects.map((p: { id: string }) => p.id).sort(), ['prj-seededdefault001', 'prj-seededplatform01']);
    assert.equal((await get('/api/v2/projects/prj-seededplatform01')).attributes.description, 'seeded');
    const teams = await get('/api/v2/organizations/seeded/teams');
    assert.ok(teams.some((t: { id: string }) => t.id === 'team-seededowners001'));
    if (has('0002_projects_workspaces')) {
      const ws = await get('/api/v2/workspaces/ws-seededworkspace01');
      assert.equal(ws.attributes.name, 'network');
      assert.equal(ws.relationships.project.data.id, 'prj-seededplatform01');
    }
    if (has('0003_policy_sets')) {
      assert.equal((await get('/api/v2/policy-sets/polset-seededpolicy01')).attributes.name, 'guardrails');
      const parameters = await get('/api/v2/policy-sets/polset-seededpolicy01/parameters');
      assert.deepEqual(
        parameters.map((p: { attributes: { key: string; value: string } }) => [p.attributes.key, p.attributes.value]),
        [['region', 'eu-west-1']],
      );
    }
    if (has('0004_agent_pools')) assert.equal((await get('/api/v2/agent-pools/apool-seededpool0001')).attributes.name, 'runners');
    if (has('0010_tags')) {
      const bindings = await get('/api/v2/workspaces/ws-seededworkspace01/tag-bindings');
      assert.deepEqual(
        bindings.map((b: { attributes: { key: string; value: string } }) => [b.attributes.key, b.attributes.value]),
        [['env', 'prod']],
      );
    }
    if (has('0011_state')) {
      const version = await get('/api/v2/state-versions/sv-seededversion001');
      const download = new URL(version.attributes['hosted-state-download-url'], 'http://localhost');
      const res = await app.inject({ method: 'GET', url: download.pathname + download.search, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.rawPayload, STATE);
    }
    if (has('0016_signed_configuration_uploads')) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v2/configuration-versions/cv-seededconfig0001/download',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.rawPayload, ARCHIVE);
    }
  } finally {
    await app.close();
  }
}

for (const dialect of dialects()) {
  // PostgreSQL migrations cost more: every third schema, and the last ones, which change most.
  const prefixes = MIGRATION_NAMES.map((_, i) => i + 1).filter((n) => dialect === 'sqlite' || n % 3 === 1 || n >= MIGRATION_NAMES.length - 1);
  describe(`migrating from every earlier schema (${dialect})`, () => {
    for (const count of prefixes) {
      const last = MIGRATION_NAMES[count - 1]!;
      it(`from ${last}`, { timeout: 120_000 }, async () => {
        const scratch = await scratchDatabase(dialect);
        try {
          await migrateFirst(scratch.database, count);
          const applied = new Set(MIGRATION_NAMES.slice(0, count));
          await seed(scratch.database.db, (m) => applied.has(m));
          await migrateToLatest(scratch.database);
          await readBack(scratch.database, (m) => applied.has(m));
        } finally {
          await scratch.drop();
        }
      });
    }
  });
}
