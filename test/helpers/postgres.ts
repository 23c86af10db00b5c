// Scratch PostgreSQL databases for tests. Each suite and each server process gets a database of
// its own, not a schema: catalogue queries (Kysely's migrator and introspection look at every
// schema of the database) then never meet another suite's schema while it is being dropped,
// which made them fail with "schema … does not exist" when suites ran side by side.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Creates an empty database on the server of `serverUrl`; `drop()` removes it, connections and all. */
export async function scratchPostgres(serverUrl: string, prefix = 'hangar_test'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
