// One blob store for every byte Hangar keeps (blobs/): the `blobs` table, one row per sealed part.
// What was kept elsewhere moves into it:
// - state files and JSON state (`state_version_blobs`), plan files and plan JSON (`job_blobs`),
//   log chunks (`job_log_chunks`): their ciphertext moves as it was (blobs/keys.ts keeps the
//   associated data they were sealed under), its `v1:<key id>:<base64>` text split into the key
//   id and the raw bytes; the three tables go.
// - configuration and policy set archives, which were not sealed: they move unsealed (key id
//   null) and the next start-up seals them. The policy set versions' column goes; the
//   configuration versions' stays as an empty marker, because SQLite cannot drop a column a
//   table check constraint names (`uploaded` ⇔ archive not null) without rebuilding the table
//   under every run that references it.
// Deleting an owner row (directly or by cascade) deletes its blob rows and queues the owner in
// `blob_deletions`, so the filesystem backend's sweep removes its files too.
import { sql, type Kysely } from 'kysely';
import { binaryType, isPostgres } from '../sql.ts';

const BATCH = 200;

// Owner tables and their blob family, frozen here.
const OWNERS: ReadonlyArray<[table: string, family: string]> = [
  ['state_versions', 'state-versions'],
  ['configuration_versions', 'configuration-versions'],
  ['jobs', 'jobs'],
  ['policy_set_versions', 'policy-set-versions'],
  ['policy_checks', 'policy-checks'],
];

interface Row {
  family: string;
  owner: string;
  name: string;
  part: number;
  key_id: string | null;
  body: Uint8Array;
  size: number;
  created_at: string;
}

/** `v1:<16 hex>:<base64>` → key id and raw bytes (what crypto/keyring.ts's `seal` keeps apart). */
function split(sealed: string): { key_id: string; body: Buffer } {
  const [version, keyId, encoded] = sealed.split(':');
  if (version !== 'v1' || !keyId || encoded === undefined) throw new Error('a sealed value has an unrecognised format');
  return { key_id: keyId, body: Buffer.from(encoded, 'base64') };
}

/** Copies `table` in primary-key order, a batch at a time, so no table is ever read whole into memory. */
async function copy(db: Kysely<any>, table: string, keys: readonly string[], where: (q: any) => any, convert: (r: any) => Row): Promise<void> {
  let after: any[] | null = null;
  for (;;) {
    let q = where(db.selectFrom(table).selectAll());
    for (const k of keys) q = q.orderBy(k);
    if (after) {
      const cursor = after;
      q = q.where(sql<boolean>`(${sql.join(keys.map((k) => sql.ref(k)))}) > (${sql.join(cursor)})`);
    }
    const rows: any[] = await q.limit(BATCH).execute();
    if (rows.length === 0) return;
    await db.insertInto('blobs').values(rows.map(convert)).execute();
    after = keys.map((k) => rows.at(-1)[k]);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return migrate(db);
  // Kysely runs SQLite migrations outside a transaction; this one copies data, so it makes its own.
  await sql`begin immediate`.execute(db);
  try {
    await migrate(db);
    await sql`commit`.execute(db);
  } catch (e) {
    await sql`rollback`.execute(db);
    throw e;
  }
}

async function migrate(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('blobs')
    .addColumn('family', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('part', 'bigint', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .addColumn('body', binaryType(db), (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blobs_pk', ['family', 'owner', 'name', 'part'])
    .execute();
  // Start-up's "which keys sealed something" and rotation's "what is not sealed with this key".
  await db.schema.createIndex('blobs_key_id').on('blobs').column('key_id').execute();
  await db.schema
    .createTable('blob_deletions')
    .addColumn('family', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_deletions_pk', ['family', 'owner'])
    .execute();

  await copy(
    db,
    'state_version_blobs',
    ['state_version_id', 'kind'],
    (q) => q,
    (r) => ({ family: 'state-versions', owner: r.state_version_id, name: r.kind, part: 0, ...split(r.sealed), size: r.size, created_at: r.created_at }),
  );
  await copy(
    db,
    'job_blobs',
    ['job_id', 'kind'],
    (q) => q,
    (r) => ({ family: 'jobs', owner: r.job_id, name: r.kind, part: 0, ...split(r.sealed), size: r.size, created_at: r.created_at }),
  );
  const now = new Date().toISOString();
  await copy(
    db,
    'job_log_chunks',
    ['job_id', 'position'],
    (q) => q,
    (r) => ({ family: 'jobs', owner: r.job_id, name: 'log', part: Number(r.position), ...split(r.sealed), size: r.size, created_at: now }),
  );
  await copy(
    db,
    'configuration_versions',
    ['id'],
    (q) => q.where('archive', 'is not', null),
    (r) => ({
      family: 'configuration-versions',
      owner: r.id,
      name: 'archive',
      part: 0,
      key_id: null,
      body: r.archive,
      size: r.archive.length,
      created_at: r.uploaded_at ?? r.created_at,
    }),
  );
  await copy(
    db,
    'policy_set_versions',
    ['id'],
    (q) => q.where('archive', 'is not', null),
    (r) => ({
      family: 'policy-set-versions',
      owner: r.id,
      name: 'archive',
      part: 0,
      key_id: null,
      body: r.archive,
      size: r.archive.length,
      created_at: r.updated_at,
    }),
  );

  await db
    .updateTable('configuration_versions')
    .set({ archive: Buffer.alloc(0) })
    .where('archive', 'is not', null)
    .execute();
  await db.schema.alterTable('policy_set_versions').dropColumn('archive').execute();
  await db.schema.dropTable('state_version_blobs').execute();
  await db.schema.dropTable('job_blobs').execute();
  await db.schema.dropTable('job_log_chunks').execute();

  if (postgres) {
    await sql`create function hangar_blob_owner_deleted() returns trigger language plpgsql as $$
      begin
        delete from blobs where family = tg_argv[0] and owner = old.id;
        insert into blob_deletions (family, owner) values (tg_argv[0], old.id) on conflict do nothing;
        return old;
      end $$`.execute(db);
  }
  for (const [table, family] of OWNERS) {
    const name = sql.raw(`${table}_blobs_deleted`);
    if (postgres) {
      await sql`create trigger ${name} after delete on ${sql.table(table)} for each row execute function hangar_blob_owner_deleted(${sql.lit(family)})`.execute(
        db,
      );
    } else {
      await sql`create trigger ${name} after delete on ${sql.table(table)} begin
        delete from blobs where family = ${sql.lit(family)} and owner = old.id;
        insert or ignore into blob_deletions (family, owner) values (${sql.lit(family)}, old.id);
      end`.execute(db);
    }
  }
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
