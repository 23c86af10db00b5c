// Faults around runs, with the real `hangar serve` process and terraform binary: the server
// killed with SIGKILL in the middle of an apply, and PostgreSQL dropping the server's
// connections while a run executes. Afterwards no run is stuck in a running status, no lock is
// held by a dead run, and no job ran twice (the apply's provisioner appends a line to a file of
// this test's for every time it runs).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import * as tar from 'tar';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { databaseEnv, hangarAsync, startServer, type Server } from './helpers/process.ts';

const skip = spawnSync('terraform', ['version'], { encoding: 'utf8' }).status === 0 ? false : 'terraform is not installed';

/** A .tar.gz holding one main.tf, as Terraform uploads a configuration. */
function archiveOf(dir: string, main: string): Buffer {
  const work = mkdtempSync(path.join(dir, 'cfg-'));
  writeFileSync(path.join(work, 'main.tf'), main);
  tar.create({ gzip: true, cwd: work, sync: true, file: path.join(work, 'c.tar.gz'), portable: true }, ['main.tf']);
  return readFileSync(path.join(work, 'c.tar.gz'));
}

/** Polls until `check` holds (the condition lives in a file or behind the API: nothing to await). */
async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs = 90_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const dialect of dialects()) {
  describe(`run faults [${dialect}]`, { skip }, () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hangar-faults-'));
    let env: Record<string, string>;
    let cleanup = async () => {};
    let server: Server | undefined;
    let token = '';
    const org = `faults-${dialect}`;

    const start = async () => {
      server = await startServer({
        ...env,
        HANGAR_LOG_LEVEL: 'warn',
        HANGAR_RUNNER_CONCURRENCY: '1',
        HANGAR_RUNNER_SILENCE_TIMEOUT: '5',
        // Job directories land in this test's directory, removed with it (a killed server cannot).
        TMPDIR: path.join(dir, 'tmp'),
      });
      return server;
    };
    async function api(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
      const res = await fetch(`${server!.url}/api/v2${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    }

    /**
     * A workspace with a configuration whose apply appends to `effects`, makes `marker`, then
     * waits until `release` exists; an auto-applied run of it, started.
     */
    async function slowApply(name: string) {
      const files = { effects: path.join(dir, `${name}.effects`), marker: path.join(dir, `${name}.marker`), release: path.join(dir, `${name}.release`) };
      const ws = await api('POST', `/organizations/${org}/workspaces`, { data: { type: 'workspaces', attributes: { name } } });
      assert.equal(ws.status, 201, JSON.stringify(ws.body));
      const cv = await api('POST', `/workspaces/${ws.body.data.id}/configuration-versions`, {
        data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
      });
      assert.equal(cv.status, 201, JSON.stringify(cv.body));
      const main =
        `resource "terraform_data" "slow" {\n  provisioner "local-exec" {\n` +
        `    command = "echo ran >> ${files.effects}; touch ${files.marker}; while [ ! -e ${files.release} ]; do sleep 0.1; done"\n  }\n}\n`;
      const put = await fetch(cv.body.data.attributes['upload-url'], { method: 'PUT', body: archiveOf(dir, main) });
      assert.equal(put.status, 200);
      const run = await api('POST', '/runs', {
        data: { type: 'runs', attributes: { 'auto-apply': true }, relationships: { workspace: { data: { type: 'workspaces', id: ws.body.data.id } } } },
      });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      return { workspaceId: ws.body.data.id as string, runId: run.body.data.id as string, ...files };
    }

    const runOf = async (id: string) => (await api('GET', `/runs/${id}?include=plan,apply`)).body;
    const effects = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;

    before(async () => {
      mkdirSync(path.join(dir, 'tmp'));
      mkdirSync(path.join(dir, 'data'));
      const db = await databaseEnv(dialect, path.join(dir, 'data'), POSTGRES_URL);
      env = db.env;
      cleanup = db.cleanup;
      await start();
      // Generous: on a loaded machine the CLI's start-up alone has taken over 30 s.
      const boot = await hangarAsync(['bootstrap'], env, 180_000);
      assert.equal(boot.status, 0, boot.stderr);
      token = boot.stdout.trim().split('\n').pop()!;
      const created = await api('POST', '/organizations', { data: { type: 'organizations', attributes: { name: org, email: 'ops@example.test' } } });
      assert.equal(created.status, 201);
    });
    after(async () => {
      await server?.stop('SIGKILL');
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('kill -9 of the server mid-apply: the next server errors the run and frees the workspace; the job never runs again', async () => {
      const slow = await slowApply('killed');
      await until('the apply to reach its provisioner', () => existsSync(slow.marker));
      assert.equal((await runOf(slow.runId)).data.attributes.status, 'applying');
      assert.equal(await server!.stop('SIGKILL'), null);
      // The orphaned terraform of the dead server may finish; it can report to nobody.
      writeFileSync(slow.release, '');

      await start();
      const errored = await until('the run to be errored', async () => {
        const run = await runOf(slow.runId);
        return run.data.attributes.status === 'applying' ? undefined : run;
      });
      assert.equal(errored.data.attributes.status, 'errored');
      assert.equal(errored.included[1].attributes.status, 'errored');
      const events = (await api('GET', `/runs/${slow.runId}/run-events`)).body.data;
      assert.match(events.at(-1).attributes.description, /stopped responding/);
      const ws = (await api('GET', `/workspaces/${slow.workspaceId}`)).body.data;
      assert.equal(ws.attributes.locked, false);
      // Nothing queued the job again: the provisioner ran once.
      assert.equal(effects(slow.effects), 1);
      // And the workspace takes its next run.
      const next = await api('POST', '/runs', {
        data: { type: 'runs', attributes: { 'plan-only': true }, relationships: { workspace: { data: { type: 'workspaces', id: slow.workspaceId } } } },
      });
      assert.equal(next.status, 201);
      const planned = await until('the next run to plan', async () => {
        const run = await runOf(next.body.data.id);
        return ['planned_and_finished', 'errored'].includes(run.data.attributes.status) ? run : undefined;
      });
      assert.equal(planned.data.attributes.status, 'planned_and_finished');
      assert.equal(effects(slow.effects), 1);
    });

    it(
      'PostgreSQL dropping the server’s connections mid-run: the run still finishes, its state kept, the lock released',
      { skip: dialect !== 'postgres' && 'PostgreSQL only' },
      async () => {
        const slow = await slowApply('dropped');
        await until('the apply to reach its provisioner', () => existsSync(slow.marker));
        const admin = new pg.Client({ connectionString: env.HANGAR_DATABASE_URL });
        await admin.connect();
        const drop = async () =>
          (
            await admin.query(
              'SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
            )
          ).rows[0].n;
        try {
          // Dropped while the runner beats and streams the log, then again as it reports the result.
          let dropped = 0;
          for (let i = 0; i < 3; i++) {
            dropped += Number(await drop());
            await new Promise((r) => setTimeout(r, 1_000));
          }
          assert.ok(dropped > 0, 'the server had connections to drop');
          writeFileSync(slow.release, '');
          await drop();
          const done = await until('the run to end', async () => {
            const res = await api('GET', `/runs/${slow.runId}?include=plan,apply`);
            // A request that lands on a connection PostgreSQL has just dropped fails alone, with
            // 503 (the pool replaces the connection); the next poll asks again.
            if (res.status === 503) return undefined;
            assert.equal(res.status, 200, JSON.stringify(res.body));
            return ['applying', 'apply_queued'].includes(res.body.data.attributes.status) ? undefined : res.body;
          });
          assert.equal(done.data.attributes.status, 'applied');
          assert.equal(server!.child.exitCode, null, 'the server survived');
          const ws = (await api('GET', `/workspaces/${slow.workspaceId}`)).body.data;
          assert.equal(ws.attributes.locked, false);
          const state = await api('GET', `/workspaces/${slow.workspaceId}/current-state-version`);
          assert.equal(state.status, 200);
          assert.equal(state.body.data.attributes.resources[0].name, 'slow');
          assert.equal(effects(slow.effects), 1);
        } finally {
          await admin.end();
        }
      },
    );
  });
}
