// Starting the real `hangar` process, for the few tests that talk to it over a socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { scratchPostgres } from './postgres.ts';

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

/**
 * A bound on one command, not a pace: a `hangar` command starts a Node process and opens the
 * database, which on a loaded two-core CI machine has taken over 30 s.
 */
const COMMAND_TIMEOUT_MS = 120_000;

/** Runs `hangar <args>` to completion (`input`: what it reads on standard input). */
export function hangar(args: string[], env: Record<string, string>, input?: string) {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: COMMAND_TIMEOUT_MS,
    ...(input === undefined ? {} : { input }),
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Runs `hangar <args>` to completion without blocking this process (which may be serving the other end). */
export function hangarAsync(
  args: string[],
  env: Record<string, string>,
  timeoutMs = COMMAND_TIMEOUT_MS,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `hangar serve` on a free port and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    // Rate limits off unless a test asks: the robustness suite writes as fast as it can.
    env: { ...process.env, HANGAR_PORT: '0', HANGAR_LOG_LEVEL: 'info', HANGAR_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, 60_000); // generous: on a loaded shared machine start-up has taken over 30 s
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // The second form is printed whatever the log level.
      const m = /(?:Server listening at|hangar: serving) (https?:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', () => reject(new Error(`server exited:\n${output}`)));
  });
  return {
    child,
    url,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * The environment for a server process on `dialect`: SQLite in `dataDir`, or a fresh database
 * on the test PostgreSQL server (dropped by `cleanup`). `params` are added to the PostgreSQL URL.
 */
export async function databaseEnv(
  dialect: string,
  dataDir: string,
  postgresUrl: string | undefined,
  params: Record<string, string> = {},
): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  if (dialect === 'sqlite') return { env: { HANGAR_DATA_DIR: dataDir }, cleanup: async () => {} };
  const scratch = await scratchPostgres(postgresUrl!, 'hangar_proc');
  const url = new URL(scratch.url);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return {
    env: { HANGAR_DATA_DIR: dataDir, HANGAR_DATABASE_URL: url.toString(), HANGAR_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') },
    cleanup: () => scratch.drop(),
  };
}

/**
 * For a describe block: a function that starts `hangar serve` on a fresh database of `dialect`
 * (see databaseEnv), and an `after` hook that kills the server and removes the database.
 */
export function scratchServer(dialect: string, postgresUrl: string | undefined, params: Record<string, string> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-proc-'));
  let cleanup = async () => {};
  let server: Server | undefined;
  after(async () => {
    await server?.stop('SIGKILL');
    await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return async (extraEnv: Record<string, string> = {}): Promise<{ server: Server; env: Record<string, string> }> => {
    const db = await databaseEnv(dialect, dataDir, postgresUrl, params);
    cleanup = db.cleanup;
    server = await startServer({ ...db.env, ...extraEnv });
    return { server, env: db.env };
  };
}
