// The `hangar` command. Administrative commands work on the configured database directly, so an
// operator can set up a fresh install before any API token exists.
// First, before anything else runs: see the module for why.
import './ops/tick-maps.ts';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { createServices } from './services.ts';
import { startRunner } from './runner/start.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { isDatabaseUnavailable, openDatabase, type Database } from './db/index.ts';
import { migrateToLatest } from './db/migrate.ts';
import { ApiError } from './jsonapi/errors.ts';
import { DecryptionError, type Keyring } from './crypto/keyring.ts';
import { configuredKeys, openKeyring } from './crypto/keys.ts';
import { checkDirectories, explainStartupError, listenOrExplain } from './ops/startup.ts';
import { loadTls } from './ops/tls.ts';

const USAGE = `Usage: hangar <command>

  serve                                   serve the API (what \`npm start\` runs)
  migrate                                 apply database migrations
  bootstrap [--username NAME]             ensure a site-admin user (default: admin) and print a new API token for it
  user create NAME --email E [--site-admin]
                                          create a user
  token create NAME [--description D]     print a new API token for user NAME
  rotate-key [--batch-size N]             re-encrypt every sensitive value with the first key of HANGAR_ENCRYPTION_KEY

Configuration comes from HANGAR_* environment variables; see README.md.`;

/** The configured database, after checking that a SQLite file's directory can be written. */
function open(config: Config): Database {
  checkDirectories(config);
  return openDatabase(config.databaseUrl);
}

async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const database = open(config);
  try {
    await migrateToLatest(database);
    return await fn(database);
  } finally {
    await database.close();
  }
}

async function serve(config: Config): Promise<void> {
  const database = open(config);
  let keyring: Keyring;
  try {
    // A malformed or missing key setting stops start-up before the database is touched.
    configuredKeys(config, database.dialect);
    await migrateToLatest(database);
    // And a server that could not open every secret it holds must not start at all.
    keyring = await openKeyring(config, database);
  } catch (e) {
    await database.close();
    throw e;
  }
  const services = createServices(database, { keyring });
  const app = await buildApp({ config, database, keyring, services, tls: loadTls(config) });
  // Remote runs execute here (HANGAR_RUNNER_CONCURRENCY workers; 0: none, this instance serves the API only).
  const runner = startRunner({ services, database, config, onError: (e) => app.log.error({ err: e }, 'runner error') });
  let closing = false;
  const shutdown = async (signal: string) => {
    // npm forwards a terminal's Ctrl-C, which the terminal also sends: the second is ignored.
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      app.log.warn({ timeoutSeconds: config.shutdownTimeoutMs / 1000 }, 'requests still in flight at HANGAR_SHUTDOWN_TIMEOUT: exiting anyway');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    // app.close() stops accepting connections, answers 503 to new requests on open ones, and
    // waits for in-flight requests to finish.
    await app.close();
    await runner.stop();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  try {
    const address = await listenOrExplain(() => app.listen({ host: config.host, port: config.port }), {
      host: config.host,
      port: config.port,
      hostSetting: 'HANGAR_HOST',
      portSetting: 'HANGAR_PORT',
    });
    const metrics = await listenOrExplain(async () => (await app.metrics?.listen()) ?? null, {
      host: config.metricsHost,
      port: config.metricsPort ?? 0,
      hostSetting: 'HANGAR_METRICS_HOST',
      portSetting: 'HANGAR_METRICS_PORT',
    });
    // Whatever the log level, say where the API is (stderr: stdout carries the JSON log).
    process.stderr.write(`hangar: serving ${address}/api/v2 (${database.dialect})\n`);
    if (metrics) process.stderr.write(`hangar: metrics at ${metrics}/metrics\n`);
  } catch (e) {
    await app.close();
    await database.close();
    throw e;
  }
}

async function run(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      'site-admin': { type: 'boolean' },
      description: { type: 'string' },
      'batch-size': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, name] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  const config = loadConfig();
  loaded = config;
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keeps running
    case 'migrate': {
      const database = open(config);
      const applied = await migrateToLatest(database).finally(() => database.close());
      console.error(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    case 'bootstrap':
      return withDatabase(config, async (database) => {
        const services = createServices(database);
        const user = await services.users.ensureSiteAdmin(values.username ?? 'admin');
        const { secret } = await services.tokens.issueUserToken(user.id, 'bootstrap');
        console.error(`site admin: ${user.username} (${user.id})`);
        console.log(secret);
        return 0;
      });
    case 'user':
      if (sub !== 'create' || !name || !values.email) break;
      return withDatabase(config, async (database) => {
        const user = await createServices(database).users.create({
          username: name,
          email: values.email!,
          isSiteAdmin: values['site-admin'] ?? false,
        });
        console.log(user.id);
        return 0;
      });
    case 'token':
      if (sub !== 'create' || !name) break;
      return withDatabase(config, async (database) => {
        const services = createServices(database);
        const user = await services.users.findByUsername(name);
        if (!user || user.isServiceAccount) {
          console.error(`no user named ${name}`);
          return 1;
        }
        const { secret } = await services.tokens.issueUserToken(user.id, values.description ?? null);
        console.log(secret);
        return 0;
      });
    case 'rotate-key': {
      const batchSize = values['batch-size'] === undefined ? undefined : Number(values['batch-size']);
      if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1)) break;
      return withDatabase(config, async (database) => {
        const keyring = await openKeyring(config, database);
        const services = createServices(database, { keyring });
        const { reencrypted, keyId } = await services.policySetParameters.rotateEncryption({ batchSize });
        // State files and their outputs are sealed with the same keys.
        const state = await services.stateVersions.rotateEncryption();
        console.error(`re-encrypted ${reencrypted + state} sensitive value(s) with key ${keyId}; keys no longer needed may now be removed`);
        return 0;
      });
    }
  }
  console.error(USAGE);
  return 2;
}

/** The configuration, once read: start-up failures are explained in its terms. */
let loaded: Config | null = null;

run(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(`configuration error: ${error.message}`);
    else if (error instanceof ApiError) console.error(`error: ${error.message}`);
    else if (error instanceof DecryptionError) console.error(`cannot decrypt: ${error.message}`);
    else {
      // An operator's mistake gets one line naming the setting; anything else is a bug, in full.
      const line = explainStartupError(error, loaded) ?? (isDatabaseUnavailable(error) ? unreachable(error) : null);
      console.error(line ? `error: ${line}` : error);
    }
    process.exitCode = 1;
  },
);

/** A database that is down, unreachable or silent, in a form explainStartupError did not know. */
function unreachable(error: unknown): string {
  const e = error as { message?: string; errors?: Array<{ message?: string }> };
  const reason = e.message || e.errors?.[0]?.message || 'no answer';
  return `cannot reach the database (${reason}); check that it is running and reachable, or correct HANGAR_DATABASE_URL`;
}
