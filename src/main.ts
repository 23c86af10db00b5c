// The `hangar` command. Administrative commands work on the configured database directly, so an
// operator can set up a fresh install before any API token exists.
// First, before anything else runs: see the module for why.
import './ops/tick-maps.ts';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { createServices } from './services.ts';
import { startRunner } from './runner/start.ts';
import { agentSettings, startAgent } from './runner/agent.ts';
import { ConfigError, loadConfig, plainHttpWarning, unknownSettingWarnings, type Config } from './config.ts';
import { isDatabaseUnavailable, openDatabase, type Database } from './db/index.ts';
import { LATEST_MIGRATION, migrateToLatest, SchemaTooNewError } from './db/migrate.ts';
import { ApiError } from './jsonapi/errors.ts';
import { DecryptionError, type Keyring } from './crypto/keyring.ts';
import { configuredKeys, openKeyring } from './crypto/keys.ts';
import { checkDirectories, databaseLabel, explainStartupError, listenOrExplain } from './ops/startup.ts';
import { loadTls } from './ops/tls.ts';
import { enableLinearRegexFallback, sentinelCommand } from './sentinel/cli.ts';
import { holdServeLock } from './ops/serve-lock.ts';
import { backup, restore } from './ops/backup.ts';
import { VERSION } from './ops/version.ts';

const USAGE = `Usage: hangar <command> [options]

Commands:
  serve                                   serve the API (what \`npm start\` runs)
  migrate                                 apply database migrations
  bootstrap [--username NAME]             ensure a site-admin user (default: admin) and print a new API token for it
  user create NAME --email E [--site-admin]
                                          create a user
  user password NAME                      set user NAME's password, read from standard input
  token create NAME [--description D]     print a new API token for user NAME
  rotate-key [--batch-size N]             re-encrypt every sensitive value with the first key of HANGAR_ENCRYPTION_KEY
  backup FILE                             copy the SQLite database (and a generated key) to FILE while the server runs
  restore FILE [--force]                  put a backup into the configured data directory, the server stopped
  sentinel test|apply ...                 run Sentinel policies and their test cases (see docs/sentinel.md)
  agent                                   run the jobs of an agent pool (HANGAR_AGENT_URL, HANGAR_AGENT_TOKEN; see docs/runs.md)

Options:
  -h, --help                              print this help
  -v, --version                           print the version of Hangar

Configuration comes from HANGAR_* environment variables; see README.md.`;

const COMMANDS = new Set(['agent', 'serve', 'migrate', 'bootstrap', 'user', 'token', 'rotate-key', 'backup', 'restore']);
/** How often `serve` removes the blob files of deleted owners (filesystem backend). */
const BLOB_SWEEP_MS = 60_000;

/** The configured database, after checking that a SQLite file's directory can be written. */
function open(config: Config): Database {
  checkDirectories(config);
  return openDatabase(config.databaseUrl);
}

async function withDatabase<T>(config: Config, fn: (db: Database) => Promise<T>): Promise<T> {
  const database = open(config);
  try {
    await migrateToLatest(database);
    // Before anything is written: a token printed for another data directory's database is no
    // use to the server, and the operator must see which one this was.
    console.error(`database: ${databaseLabel(config)}`);
    return await fn(database);
  } finally {
    await database.close();
  }
}

async function serve(config: Config): Promise<void> {
  checkDirectories(config);
  holdServeLock(config);
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
  // As the sentinel command does: a backtracking regular expression in a policy cannot outrun the time limit.
  enableLinearRegexFallback();
  const services = createServices(database, {
    keyring,
    policyTimeoutMs: config.policyTimeoutMs,
    policyMemoryMb: config.policyMemoryMb,
    blobDir: config.blobDir,
  });
  // Blobs: into HANGAR_BLOB_DIR if newly set, older releases' unsealed archives sealed.
  await services.blobs.prepare();
  const app = await buildApp({ config, database, keyring, services, tls: loadTls(config) });
  // Files of deleted owners (the database's own rows go with their owners at once).
  const blobSweep = setInterval(() => void services.blobs.sweep().catch((e: unknown) => app.log.error({ err: e }, 'blob sweep failed')), BLOB_SWEEP_MS);
  blobSweep.unref();
  // Remote runs execute here (HANGAR_RUNNER_CONCURRENCY workers; 0: none, this instance serves the API only).
  const runner = startRunner({
    services,
    database,
    config,
    variables: services.variables,
    path: process.env.PATH,
    onError: (e) => app.log.error({ err: e }, 'runner error'),
  });
  // Notifications of runs' status changes, sent from the outbox (started once the address is known).
  let deliverer: { stop(): Promise<void> } | null = null;
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
    clearInterval(blobSweep);
    await deliverer?.stop();
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
    deliverer = services.notificationConfigurations.startDeliverer({
      // Run links in notifications: the public origin when one is set, else where this instance listens.
      baseUrl: config.baseUrl ?? address,
      onError: (e) => app.log.error({ err: e }, 'notification delivery failed'),
    });
    // Whatever the log level, say where the API is (stderr: stdout carries the JSON log).
    process.stderr.write(`hangar: serving ${address}/api/v2 (database: ${databaseLabel(config)})\n`);
    if (metrics) process.stderr.write(`hangar: metrics at ${metrics}/metrics\n`);
    const plain = plainHttpWarning(config);
    if (plain) {
      process.stderr.write(`warning: ${plain}\n`);
      app.log.warn(plain);
    }
  } catch (e) {
    await app.close();
    await database.close();
    throw e;
  }
}

/** `hangar agent`: runs its pool's jobs until SIGTERM (drains) or its token is refused (exits 1). */
async function agent(config: Config): Promise<number> {
  const settings = agentSettings(config, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin');
  const say = (line: string) => process.stderr.write(`hangar agent: ${line}\n`);
  const running = startAgent(settings, say);
  process.on('SIGTERM', () => running.drain());
  process.on('SIGINT', () => running.drain());
  const code = await running.done;
  // Open keep-alive connections to Hangar would hold the process a few seconds more.
  process.exit(code);
}

async function run(argv: string[]): Promise<number> {
  // Needs no database or configuration, and has flags of its own.
  if (argv[0] === 'sentinel') return sentinelCommand(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        username: { type: 'string' },
        email: { type: 'string' },
        'site-admin': { type: 'boolean' },
        description: { type: 'string' },
        'batch-size': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        force: { type: 'boolean' },
      },
    });
  } catch (e) {
    // An unknown or malformed option: parseArgs says which, in one line.
    // (Its advice on positionals that start with '-' does not apply: no command takes one.)
    const message = (e as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    console.error(`error: ${message}; \`hangar --help\` lists the commands and options`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [command, sub, name] = positionals;
  if (values.version) {
    console.log(VERSION);
    return 0;
  }
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (!COMMANDS.has(command)) {
    console.error(`error: unknown command "${command}"; \`hangar --help\` lists the commands`);
    return 2;
  }
  const config = loadConfig();
  loaded = config;
  for (const warning of unknownSettingWarnings()) console.error(`warning: ${warning}`);
  switch (command) {
    case 'serve':
      await serve(config);
      return -1; // keeps running
    case 'agent':
      return agent(config);
    case 'migrate': {
      const database = open(config);
      const applied = await migrateToLatest(database).finally(() => database.close());
      console.error(`database: ${databaseLabel(config)}`);
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
      if (sub === 'password' && name) {
        const password = await readPassword();
        return withDatabase(config, async (database) => {
          const users = createServices(database).users;
          const found = await users.findByUsername(name);
          if (!found || found.isServiceAccount) {
            console.error(`no user named ${name}`);
            return 1;
          }
          const user = await users.setPassword(name, password);
          console.error(`password set for ${user.username} (${user.id})`);
          return 0;
        });
      }
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
        const services = createServices(database, { keyring, blobDir: config.blobDir });
        const { reencrypted, keyId } = await services.policySetParameters.rotateEncryption({ batchSize });
        // State outputs are sealed with the same keys, and so is every blob (state, archives, plan files, logs).
        const state = await services.stateVersions.rotateEncryption();
        const variables = await services.variables.rotateEncryption({ batchSize });
        const notificationTokens = await services.notificationConfigurations.rotateEncryption({ batchSize });
        const sshKeys = (await services.sshKeys.rotateEncryption({ batchSize })).reencrypted;
        const blobs = await services.blobs.reseal({ batchSize });
        console.error(
          `re-encrypted ${reencrypted + state + variables + notificationTokens + sshKeys + blobs} sensitive value(s) with key ${keyId}; keys no longer needed may now be removed`,
        );
        return 0;
      });
    }
    case 'backup':
    case 'restore': {
      if (!sub) break;
      const out = { info: (line: string) => console.error(line), result: (line: string) => console.log(line) };
      return command === 'backup' ? backup(config, sub, out) : restore(config, sub, { force: values.force ?? false }, out);
    }
  }
  console.error(USAGE);
  return 2;
}

/**
 * The new password: the first line of standard input (a pipe, or typed at a terminal, where it is
 * not echoed). Only the line's end is removed; spaces inside and around it are part of it.
 */
async function readPassword(): Promise<string> {
  const input = process.stdin;
  const tty = input.isTTY;
  if (tty) {
    process.stderr.write('new password: ');
    input.setRawMode(true);
  }
  let text = '';
  try {
    for await (const chunk of input) {
      text += chunk.toString('utf8');
      // At a terminal, raw mode hands over each key: Enter ends it, Ctrl-C or Ctrl-D gives up.
      if (tty && /[\r\n\u0003\u0004]/.test(text)) break;
      if (text.length > 64 * 1024) break;
    }
  } finally {
    if (tty) {
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
    }
  }
  if (/\u0003/.test(text)) throw new ApiError(400, [{ status: '400', title: 'bad request', detail: 'cancelled' }]);
  return text.split(/\r?\n|\r|\u0004/)[0] ?? '';
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
    else if (error instanceof SchemaTooNewError) {
      console.error(
        `error: database schema ${error.unknown.join(', ')} is newer than this Hangar ${VERSION} knows (latest ${LATEST_MIGRATION}); upgrade Hangar`,
      );
    } else {
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
