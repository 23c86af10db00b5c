// The real process: every start-up failure an operator can fix is one line on stderr naming the
// setting to change, exit status 1, no stack trace; and `npm start` stops gracefully on SIGTERM.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { explainStartupError } from '../src/ops/startup.ts';
import { hangar } from './helpers/process.ts';
import { freePort } from './helpers/redis.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const MAIN = path.join(ROOT, 'src/main.ts');
const POSTGRES_URL = process.env.HANGAR_TEST_POSTGRES_URL;
const KEY = Buffer.alloc(32, 5).toString('base64');

/** Asserts the failure the operator sees: exit 1 and exactly one line, matching `pattern`. */
function assertOneLine(r: { status: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${r.stderr}`);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at |node_modules/);
}

describe('start-up failures', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'hangar-startup-'));
  const dataDir = path.join(scratch, 'data');
  const serve = (env: Record<string, string>) => hangar(['serve'], { HANGAR_DATA_DIR: dataDir, HANGAR_PORT: '0', ...env });
  let busy: NetServer;
  let busyPort: number;
  before(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    busyPort = (busy.address() as { port: number }).port;
  });
  after(() => {
    busy?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('port in use: names HANGAR_PORT', () => {
    assertOneLine(
      serve({ HANGAR_PORT: String(busyPort) }),
      new RegExp(`^error: 127\\.0\\.0\\.1:${busyPort} is already in use; .*set HANGAR_PORT to a free port`),
    );
  });

  it('metrics port in use: names HANGAR_METRICS_PORT', () => {
    assertOneLine(serve({ HANGAR_METRICS_PORT: String(busyPort) }), new RegExp(`^error: 127\\.0\\.0\\.1:${busyPort} is already in use; .*HANGAR_METRICS_PORT`));
  });

  it('listen address not on this machine: names HANGAR_HOST', () => {
    assertOneLine(serve({ HANGAR_HOST: '192.0.2.1' }), /^error: cannot listen on 192\.0\.2\.1: .*set HANGAR_HOST/);
  });

  it('PostgreSQL refusing connections: names HANGAR_DATABASE_URL', async () => {
    const closed = await freePort();
    const r = serve({ HANGAR_DATABASE_URL: `postgres://postgres:s3cret@127.0.0.1:${closed}/hangar`, HANGAR_ENCRYPTION_KEY: KEY });
    assertOneLine(r, new RegExp(`^error: cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${closed} \\(connection refused\\); .*HANGAR_DATABASE_URL`));
    assert.ok(!r.stderr.includes('s3cret'), 'the password is never printed');
  });

  it('PostgreSQL host not found: names the host and HANGAR_DATABASE_URL', () => {
    const r = serve({ HANGAR_DATABASE_URL: 'postgres://postgres@hangar-no-such-host.invalid:5432/hangar', HANGAR_ENCRYPTION_KEY: KEY });
    assertOneLine(r, /^error: cannot resolve the PostgreSQL host "hangar-no-such-host\.invalid" \(DNS\); correct the host in HANGAR_DATABASE_URL$/);
  });

  it('malformed HANGAR_DATABASE_URL: names it, never echoes it', () => {
    for (const url of ['postgres://admin:s3cret@db.example:99999/hangar', 'postgres://admin:s3cret@/hangar', 'postgres://admin:%zz@db/hangar', 'sqlite:']) {
      const r = serve({ HANGAR_DATABASE_URL: url, HANGAR_ENCRYPTION_KEY: KEY });
      assertOneLine(r, /^configuration error: HANGAR_DATABASE_URL /);
      assert.ok(!r.stderr.includes('s3cret'), url);
    }
  });

  it('data directory that cannot be created: names its path and HANGAR_DATA_DIR', () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, '');
    const r = serve({ HANGAR_DATA_DIR: path.join(file, 'data') });
    assertOneLine(
      r,
      new RegExp(`^error: cannot create the data directory ${file}/data \\(part of the path is a file\\); set HANGAR_DATA_DIR to a writable directory$`),
    );
  });

  it('read-only data directory: names its path and HANGAR_DATA_DIR', () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'hangar-ro-'));
    const readOnly = path.join(parent, 'data');
    mkdirSync(readOnly);
    chmodSync(parent, 0o755);
    chmodSync(readOnly, 0o555);
    try {
      // root writes anywhere: run the server as nobody to make the permission bits count.
      const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      const r = spawnSync(process.execPath, [MAIN, 'serve'], {
        env: { ...process.env, HANGAR_DATA_DIR: readOnly, HANGAR_PORT: '0' },
        encoding: 'utf8',
        timeout: 30_000,
        cwd: tmpdir(),
        ...asNobody,
      });
      assertOneLine(
        r,
        new RegExp(`^error: the data directory ${readOnly} is not writable \\(permission denied\\); set HANGAR_DATA_DIR to a writable directory$`),
      );
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });

  it('PostgreSQL without an encryption key: names HANGAR_ENCRYPTION_KEY', () => {
    const r = serve({ HANGAR_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', HANGAR_ENCRYPTION_KEY: '' });
    assertOneLine(r, /^configuration error: HANGAR_ENCRYPTION_KEY is required with PostgreSQL/);
  });

  it('PostgreSQL user that does not exist: names the user and HANGAR_DATABASE_URL', { skip: !POSTGRES_URL && 'HANGAR_TEST_POSTGRES_URL is not set' }, () => {
    const url = new URL(POSTGRES_URL!);
    url.username = 'hangar_no_such_role';
    const r = serve({ HANGAR_DATABASE_URL: url.toString(), HANGAR_ENCRYPTION_KEY: KEY });
    assertOneLine(r, /^error: PostgreSQL at .* refused user "hangar_no_such_role": role "hangar_no_such_role" does not exist; .*HANGAR_DATABASE_URL$/);
  });

  it('PostgreSQL database that does not exist: names it and HANGAR_DATABASE_URL', { skip: !POSTGRES_URL && 'HANGAR_TEST_POSTGRES_URL is not set' }, () => {
    const url = new URL(POSTGRES_URL!);
    url.pathname = '/hangar_no_such_database';
    const r = serve({ HANGAR_DATABASE_URL: url.toString(), HANGAR_ENCRYPTION_KEY: KEY });
    assertOneLine(
      r,
      /^error: the PostgreSQL database "hangar_no_such_database" does not exist on .*; create it \(createdb hangar_no_such_database\) or correct HANGAR_DATABASE_URL$/,
    );
  });
});

describe('start-up failures the process tests cannot provoke cheaply', () => {
  const config = loadConfig({ HANGAR_DATABASE_URL: 'postgres://hangar:s3cret@db.internal:6432/hangar', HANGAR_ENCRYPTION_KEY: KEY });
  const explain = (error: unknown) => explainStartupError(error, config);
  const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

  it("tells a database that does not answer in time (the driver's connect timeout)", () => {
    for (const message of ['Connection terminated due to connection timeout', 'timeout exceeded when trying to connect']) {
      assert.equal(
        explain(new Error(message)),
        'PostgreSQL at db.internal:6432 did not answer in time; check that it is running and reachable, or correct HANGAR_DATABASE_URL',
      );
    }
  });

  it('tells refusals reported for every address of a host at once', () => {
    const error = Object.assign(
      new AggregateError([pgError('ECONNREFUSED', 'connect ECONNREFUSED ::1:6432'), pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6432')]),
      { code: 'ECONNREFUSED' },
    );
    assert.match(explain(error)!, /^cannot connect to PostgreSQL at db\.internal:6432 \(connection refused\)/);
  });

  it('tells a wrong or missing password without printing it', () => {
    assert.equal(
      explain(pgError('28P01', 'password authentication failed for user "hangar"')),
      'PostgreSQL at db.internal:6432 refused the password of user "hangar"; correct the password in HANGAR_DATABASE_URL',
    );
    assert.match(
      explain(new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'))!,
      /asks user "hangar" for a password; add it to HANGAR_DATABASE_URL$/,
    );
    assert.ok(!JSON.stringify([explain(pgError('28P01', 'x')), explain(pgError('3D000', 'x'))]).includes('s3cret'));
  });

  it('leaves anything else to be printed in full, as the bug it is', () => {
    assert.equal(explain(new TypeError('undefined is not a function')), null);
    assert.equal(explain(pgError('42P01', 'relation "x" does not exist')), null);
  });
});

/** `npm start` as an operator runs it. */
function npmStart(env: Record<string, string>) {
  const child = spawn('npm', ['start'], { cwd: ROOT, env: { ...process.env, HANGAR_LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<{ port: number; nodePid: number }>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /"pid":(\d+).*Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) resolve({ nodePid: Number(m[1]), port: Number(m[2]) });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => reject(new Error(`npm start exited:\n${output}`)));
  });
  return { child, exited, listening, output: () => output };
}

/** Opens a POST whose body is only half sent: a request in flight until `finish()`. */
function halfSentRequest(port: number, token: string, body: string) {
  const socket: Socket = connect(port, '127.0.0.1');
  let response = '';
  socket.on('data', (d) => (response += d.toString()));
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(response)));
  socket.on('error', () => {});
  const head = [
    'POST /api/v2/organizations HTTP/1.1',
    'Host: 127.0.0.1',
    `Authorization: Bearer ${token}`,
    'Content-Type: application/vnd.api+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  const half = Math.floor(body.length / 2);
  socket.write(head + body.slice(0, half));
  return { finish: () => socket.write(body.slice(half)), closed, socket };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });

const waitFor = async (what: () => boolean, label: string) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(what(), label);
};

describe('npm start and SIGTERM', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-npm-'));
  const env = { HANGAR_DATA_DIR: dataDir, HANGAR_PORT: '0' };
  let token: string;
  /** Server processes to kill if a test fails before they exit (an orphan would hold the pipes). */
  const started: number[] = [];
  before(() => {
    const boot = hangar(['bootstrap'], env);
    assert.equal(boot.status, 0, boot.stderr);
    token = boot.stdout.trim();
  });
  after(() => {
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes the request in flight, refuses new connections, and leaves no process behind', { timeout: 60_000 }, async () => {
    const server = npmStart(env);
    const { port, nodePid } = await server.listening;
    started.push(nodePid);
    const body = JSON.stringify({ data: { type: 'organizations', attributes: { name: 'in-flight', email: 'ops@example.test' } } });
    const inFlight = halfSentRequest(port, token, body);
    // The request's headers reach the server before the signal does.
    await new Promise((r) => setTimeout(r, 300));
    process.kill(server.child.pid!, 'SIGTERM'); // to npm alone, as a supervisor would
    await waitFor(() => server.output().includes('shutting down'), `the server heard SIGTERM through npm:\n${server.output()}`);
    assert.ok(await refused(port), 'new connections are refused');
    inFlight.finish();
    assert.match(await inFlight.closed, /^HTTP\/1\.1 201 /);
    assert.equal(await server.exited, 0);
    await waitFor(() => !alive(nodePid), 'node exited with npm');
  });

  it('exits within HANGAR_SHUTDOWN_TIMEOUT when a request never finishes', { timeout: 60_000 }, async () => {
    const server = npmStart({ ...env, HANGAR_SHUTDOWN_TIMEOUT: '1' });
    const { port, nodePid } = await server.listening;
    started.push(nodePid);
    const body = JSON.stringify({ data: { type: 'organizations', attributes: { name: 'never-finished', email: 'ops@example.test' } } });
    const stuck = halfSentRequest(port, token, body);
    await new Promise((r) => setTimeout(r, 300));
    process.kill(server.child.pid!, 'SIGTERM');
    assert.notEqual(await server.exited, 0);
    assert.match(server.output(), /exiting anyway/);
    await waitFor(() => !alive(nodePid), 'node exited with npm');
    stuck.socket.destroy();
  });
});
