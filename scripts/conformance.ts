// go-tfe conformance: for each database, start a real Hangar server on a free port with a fresh
// data directory (and, for PostgreSQL, a fresh database it creates and drops), bootstrap a
// site-admin token, and run the compiled go-tfe v1.90.0 integration tests of the contract, and
// those beyond it listed in scripts/conformance-beyond.txt, against it, with rate limits on
// (go-tfe reads the headers and paces itself).
//
//   npm run conformance                         # SQLite, then PostgreSQL
//   npm run conformance -- --db sqlite          # one database (repeatable)
//   npm run conformance -- --run '^TestWorkspacesLock$'   # a regex instead of the contract list
//
// The suite is not part of the repository: it lives in ../shared/conformance (override with
// HANGAR_CONFORMANCE_DIR). Without it, this prints one line and exits 0, so a user's clone is
// not held to a suite it does not have. PostgreSQL: the server named by
// HANGAR_CONFORMANCE_POSTGRES_URL, else HANGAR_TEST_POSTGRES_URL, else postgres@127.0.0.1:5432.
// Exit status: 0 only if every run passed every test of the list.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const ROOT = path.resolve(import.meta.dirname, '..');
const MAIN = path.join(ROOT, 'src/main.ts');
const DIR = path.resolve(ROOT, process.env.HANGAR_CONFORMANCE_DIR ?? '../shared/conformance');
const RUNNER = path.join(DIR, 'run-gotfe');
const POSTGRES_URL = process.env.HANGAR_CONFORMANCE_POSTGRES_URL ?? process.env.HANGAR_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DIALECTS = ['sqlite', 'postgres'] as const;
type Dialect = (typeof DIALECTS)[number];

const { values } = parseArgs({
  options: {
    db: { type: 'string', multiple: true },
    list: { type: 'string' },
    run: { type: 'string' },
    jobs: { type: 'string' },
  },
});

if (!existsSync(RUNNER)) {
  console.log(`conformance: skipped, no go-tfe suite at ${DIR} (it is not part of the repository; set HANGAR_CONFORMANCE_DIR to where run-gotfe is)`);
  process.exit(0);
}
const dialects = (values.db ?? [...DIALECTS]) as Dialect[];
for (const d of dialects) {
  if (!DIALECTS.includes(d)) {
    console.error(`conformance: unknown --db ${d} (sqlite or postgres)`);
    process.exit(2);
  }
}
/** The contracts this build is held to, every test of each. */
const CONTRACTS = ['expected-pass.txt', 'expected-pass-runs.txt', 'expected-pass-policies.txt', 'expected-pass-people.txt'];

/**
 * What to run: a regex (`--run`), a list (`--list`), or by default the contracts and, after them,
 * `conformance-beyond.txt`: the go-tfe tests outside the contracts that Hangar passes too.
 */
function listFile(): string {
  if (values.list !== undefined) return path.resolve(values.list);
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-conformance-list-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const all = path.join(dir, 'list.txt');
  const lists = [...CONTRACTS.map((name) => path.join(DIR, name)), path.join(ROOT, 'scripts/conformance-beyond.txt')];
  writeFileSync(all, lists.map((file) => readFileSync(file, 'utf8')).join('\n'));
  return all;
}
/**
 * Shards run at once against one server, each with a token of its own. go-tfe's tests each make
 * their own organization, so they do not see each other; a run test waits on Terraform more than
 * on the CPU, and the runs contract alone takes most of CI's time when run one test at a time.
 */
const JOBS = Number(values.jobs ?? process.env.HANGAR_CONFORMANCE_JOBS ?? 3);
if (!Number.isInteger(JOBS) || JOBS < 1 || JOBS > 16) {
  console.error('conformance: --jobs takes a whole number from 1 to 16');
  process.exit(2);
}

/**
 * Tests that see or change what every shard shares run alone, after the shards:
 * - the site-admin views (/admin/runs, /admin/workspaces) list every organization's runs and
 *   workspaces and count them, so they would count the other shards' runs too;
 * - TestUsersUpdate renames the one account every shard's token belongs to, for a moment; a shard
 *   adding that account to a team by its name in that moment fails (TestTeamMembersAddByUsername).
 */
const ALONE = /^(TestAdmin|TestUsersUpdate$)/;

/**
 * The runner's arguments for each shard run at once, and for the tests that run alone after them:
 * a regex runs as one shard; a list is dealt out round-robin.
 */
function selections(): { shards: string[][]; alone: string[][] } {
  if (values.run !== undefined) return { shards: [[values.run]], alone: [] };
  const entries = readFileSync(listFile(), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    // A test in two lists (a contract, and beyond it before the contract took it) runs once.
    .filter((line, i, all) => all.indexOf(line) === i);
  // The runner names a test's log after the test alone, so the modes of one test (`TestX`,
  // `beta TestX`) share a shard and run one after the other, never writing one log at once.
  const byTest = new Map<string, string[]>();
  const alone: string[] = [];
  for (const entry of entries) {
    const name = entry.split(/\s+/).at(-1)!;
    if (ALONE.test(name)) alone.push(entry);
    else byTest.set(name, [...(byTest.get(name) ?? []), entry]);
  }
  const shards = Array.from({ length: Math.min(JOBS, Math.max(byTest.size, 1)) }, () => [] as string[]);
  [...byTest.values()].forEach((group, i) => shards[i % shards.length]!.push(...group));
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-conformance-shards-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const asList = (shard: string[], name: string) => {
    const file = path.join(dir, `${name}.txt`);
    writeFileSync(file, `${shard.join('\n')}\n`);
    return ['--list', file];
  };
  return {
    shards: shards.filter((shard) => shard.length > 0).map((shard, i) => asList(shard, `shard-${i + 1}`)),
    alone: alone.length ? [asList(alone, 'site-wide')] : [],
  };
}
const planned = selections();

const SUMMARY = /^go-tfe: (\d+) passed, (\d+) failed, (\d+) skipped/;

// go-tfe's notification configuration tests need a URL that answers (TFC_RUN_TASK_URL, which its
// helpers also use for run tasks): a local receiver that answers 200 to anything, and keeps nothing.
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
receiver.unref();
const RECEIVER_URL = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/notifications`;

/** A server's environment: only what this script sets, so a caller's HANGAR_* cannot leak in. */
function serverEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HANGAR_')) env[k] = v;
  // Rate limits on, as TFE serves them: go-tfe paces itself by the headers.
  return { ...env, HANGAR_RATE_LIMIT: process.env.HANGAR_RATE_LIMIT ?? '30', HANGAR_LOG_LEVEL: 'warn', HANGAR_HOST: '127.0.0.1', ...extra };
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Starts `hangar serve` on a free port; resolves with its URL once it listens. */
function startServer(env: NodeJS.ProcessEnv, logFile: string): Promise<{ child: ChildProcess; url: string }> {
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: { ...env, HANGAR_PORT: '0' }, stdio: ['ignore', log, 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within 30 s:\n${seen}`));
    }, 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /hangar: serving (http:\/\/[^/\s]+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]! });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening:\n${seen}`));
    });
  });
}

/** Runs a command to its end; its stderr is passed through, or with `captureStderr` kept in `stderr`. */
function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
  captureStderr = false,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', captureStderr ? 'pipe' : 'inherit'] });
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let pending = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) onLine?.(line);
    });
    child.on('close', (code) => {
      if (pending) onLine?.(pending);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A URL without its password, for messages. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

const minutes = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

interface Outcome {
  dialect: Dialect;
  ok: boolean;
  summary: string;
  elapsed: number;
  logs: string;
}

let stopCurrent: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void (stopCurrent?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

async function conformance(dialect: Dialect): Promise<Outcome> {
  const started = Date.now();
  const dataDir = mkdtempSync(path.join(tmpdir(), `hangar-conformance-${dialect}-`));
  const logs = path.join(dataDir, 'logs');
  mkdirSync(logs);
  let extra: Record<string, string> = { HANGAR_DATA_DIR: path.join(dataDir, 'data'), HANGAR_DATABASE_URL: `sqlite:${path.join(dataDir, 'data', 'hangar.db')}` };
  let drop = async () => {};
  if (dialect === 'postgres') {
    const name = `hangar_conformance_${randomBytes(6).toString('hex')}`;
    try {
      await adminQuery(`CREATE DATABASE ${name}`);
    } catch (e) {
      return {
        dialect,
        ok: false,
        summary: `cannot create a database on ${redacted(POSTGRES_URL)}: ${(e as Error).message}`,
        elapsed: Date.now() - started,
        logs,
      };
    }
    drop = () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    extra = { ...extra, HANGAR_DATABASE_URL: url.toString(), HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
  }
  const env = serverEnv(extra);
  let server: ChildProcess | undefined;
  const stop = async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    await drop().catch((e: Error) => console.error(`conformance [${dialect}]: could not drop the database: ${e.message}`));
    drop = async () => {};
  };
  stopCurrent = stop;
  try {
    const listening = await startServer(env, path.join(logs, 'hangar.log'));
    server = listening.child;
    console.log(`conformance [${dialect}]: server at ${listening.url}, logs in ${logs}, ${planned.shards.length} shard(s)`);
    const runShard = async (selection: string[]) => {
      const boot = await run(process.execPath, [MAIN, 'bootstrap'], env, undefined, true);
      const token = boot.stdout.trim().split('\n').at(-1) ?? '';
      if (boot.code !== 0 || !token) return { ok: false, counts: [0, 0, 0], problem: `hangar bootstrap failed (${boot.code}): ${boot.stderr.trim()}` };
      let counts: number[] | undefined;
      const result = await run(
        RUNNER,
        selection,
        // A listed test takes seconds, a run test up to a minute or two; 240 s (the runner's
        // default) bounds what a hung test costs CI without cutting a slow one short.
        {
          ...process.env,
          TFE_ADDRESS: listening.url,
          TFE_TOKEN: token,
          TFC_RUN_TASK_URL: RECEIVER_URL,
          GOTFE_LOG_DIR: logs,
          GOTFE_TEST_TIMEOUT: process.env.GOTFE_TEST_TIMEOUT ?? '240',
        },
        (line) => {
          const m = SUMMARY.exec(line);
          if (m) counts = [Number(m[1]), Number(m[2]), Number(m[3])];
          else if (!line.startsWith('logs: ')) console.log(`  ${line}`);
        },
      );
      return {
        ok: result.code === 0 && counts !== undefined,
        counts: counts ?? [0, 0, 0],
        problem: counts ? '' : `the runner exited ${result.code} without a summary`,
      };
    };
    const shards = await Promise.all(planned.shards.map(runShard));
    for (const selection of planned.alone) shards.push(await runShard(selection));
    const [passed, failed, skipped] = [0, 1, 2].map((i) => shards.reduce((n, shard) => n + shard.counts[i]!, 0));
    const problems = shards.map((shard) => shard.problem).filter(Boolean);
    const summary = `go-tfe: ${passed} passed, ${failed} failed, ${skipped} skipped${problems.length ? ` (${problems.join('; ')})` : ''}`;
    const elapsed = Date.now() - started;
    return { dialect, ok: shards.every((shard) => shard.ok), summary, elapsed, logs };
  } catch (e) {
    return { dialect, ok: false, summary: (e as Error).message, elapsed: Date.now() - started, logs };
  } finally {
    await stop();
    stopCurrent = undefined;
    rmSync(path.join(dataDir, 'data'), { recursive: true, force: true });
  }
}

const outcomes: Outcome[] = [];
for (const dialect of dialects) outcomes.push(await conformance(dialect));
for (const o of outcomes) console.log(`conformance [${o.dialect}]: ${o.ok ? 'PASS' : 'FAIL'} ${o.summary} in ${minutes(o.elapsed)} (logs: ${o.logs})`);
process.exit(outcomes.every((o) => o.ok) ? 0 : 1);
