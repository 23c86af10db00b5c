// Agent-mode runs with the real Terraform CLI: a workspace in `agent` mode, its pool and an agent
// token, and `hangar agent` processes this test starts (the server itself runs no jobs:
// HANGAR_RUNNER_CONCURRENCY=0). `terraform apply` through a `cloud` block is executed by the
// agent; the agent's own settings never reach terraform; a `kill -9` of the agent in the middle
// of an apply errors the run once the silence timeout passes, frees the workspace, and nothing
// runs twice; SIGTERM drains an agent; a revoked token stops one within seconds. Only the
// built-in `terraform_data` resource is used, so no provider is downloaded.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { hangar, scratchServer, type Server } from './helpers/process.ts';
import { runTerraform, succeeded, terraformE2eSkip, tlsApi } from './helpers/terraform-cli.ts';
import { makeCertificates, type TestCertificates } from './helpers/tls.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const skip = terraformE2eSkip();
if (skip) console.log(`# SKIP agent runs end-to-end: ${skip}`);

const api = tlsApi;

/** A running `hangar agent`, in a process group of its own (a kill -9 takes its terraform with it, as a lost machine would). */
interface Agent {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** Resolves when the agent has printed a line matching `pattern`. */
  said(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

function startAgent(env: Record<string, string>): Agent {
  const child = spawn(process.execPath, [MAIN, 'agent'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (c: Buffer) => {
    output += c.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  after(() => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  });
  return {
    child,
    output: () => output,
    exited,
    said: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`the agent did not say ${pattern}:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
  };
}

/** Resolves with the exit code, or null if the process is still running after `ms`. */
const exitWithin = (agent: Agent, ms: number) =>
  Promise.race([agent.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms).unref())]);

for (const dialect of dialects()) {
  describe(`agent runs with terraform [${dialect}]`, { skip }, () => {
    const home = mkdtempSync(path.join(tmpdir(), 'hangar-agent-tf-'));
    const start = scratchServer(dialect, POSTGRES_URL);
    let certs: TestCertificates;
    let server: Server;
    let host: string;
    let base: string;
    let token: string;
    let ca: Buffer;
    let poolId: string;
    let agentToken: { id: string; secret: string };
    const org = `agents-${dialect}`;

    const tfEnv = () => ({
      PATH: process.env.PATH ?? '',
      HOME: home,
      TF_CLI_CONFIG_FILE: path.join(home, 'terraform.rc'),
      SSL_CERT_FILE: certs.caFile,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      NO_COLOR: '1',
    });
    const agentEnv = (secret: string, name: string) => ({
      PATH: process.env.PATH ?? '',
      HOME: home,
      NODE_EXTRA_CA_CERTS: certs.caFile,
      HANGAR_AGENT_URL: `https://${host}`,
      HANGAR_AGENT_TOKEN: secret,
      HANGAR_AGENT_NAME: name,
      HANGAR_DATA_DIR: path.join(home, 'agent-data'),
    });
    const terraform = (dir: string, args: string[]) => runTerraform(dir, args, tfEnv());
    const ok = succeeded;
    /** A directory with a `cloud` block for workspace `name` and the given resources. */
    function configDir(name: string, resources: string): string {
      const dir = path.join(home, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "${name}"\n    }\n  }\n}\n${resources}`,
      );
      return dir;
    }
    async function agentWorkspace(name: string): Promise<string> {
      const created = await api(`${base}/organizations/${org}/workspaces`, 'POST', token, ca, {
        data: { type: 'workspaces', attributes: { name, 'execution-mode': 'agent', 'agent-pool-id': poolId } },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.data.attributes['execution-mode'], 'agent');
      return created.body.data.id;
    }
    async function waitForRun(workspaceId: string, statuses: string[], timeoutMs = 120_000): Promise<any> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const runs = await api(`${base}/workspaces/${workspaceId}/runs`, 'GET', token, ca);
        const run = runs.body.data?.[0];
        if (run && statuses.includes(run.attributes.status)) return run;
        if (Date.now() > until) throw new Error(`no run of ${workspaceId} is ${statuses.join('|')}: ${JSON.stringify(run?.attributes.status)}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    /** The whole log behind a log URL, as go-tfe reads it (no token). */
    const readLog = (url: string) =>
      new Promise<string>((resolve, reject) => {
        request(`${url}?offset=0&limit=10000000`, { ca }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });

    before(async () => {
      certs = makeCertificates();
      ca = readFileSync(certs.caFile);
      const started = await start({
        HANGAR_TLS_CERT_FILE: certs.certFile,
        HANGAR_TLS_KEY_FILE: certs.keyFile,
        HANGAR_LOG_LEVEL: 'warn',
        // No job runs on the server: agent-mode work is the agents'.
        HANGAR_RUNNER_CONCURRENCY: '0',
        HANGAR_RUNNER_SILENCE_TIMEOUT: '6',
      });
      server = started.server;
      host = `localhost:${new URL(server.url).port}`;
      base = `https://${host}/api/v2`;
      const boot = hangar(['bootstrap'], started.env);
      assert.equal(boot.status, 0, boot.stderr);
      token = boot.stdout.trim().split('\n').pop()!;
      writeFileSync(path.join(home, 'terraform.rc'), `credentials "${host}" {\n  token = "${token}"\n}\n`);
      assert.equal(
        (await api(`${base}/organizations`, 'POST', token, ca, { data: { type: 'organizations', attributes: { name: org, email: 'ops@example.test' } } }))
          .status,
        201,
      );
      const pool = await api(`${base}/organizations/${org}/agent-pools`, 'POST', token, ca, { data: { type: 'agent-pools', attributes: { name: 'e2e' } } });
      assert.equal(pool.status, 201, JSON.stringify(pool.body));
      poolId = pool.body.data.id;
      const t = await api(`${base}/agent-pools/${poolId}/authentication-tokens`, 'POST', token, ca, {
        data: { type: 'authentication-tokens', attributes: { description: 'e2e' } },
      });
      assert.equal(t.status, 201);
      agentToken = { id: t.body.data.id, secret: t.body.data.attributes.token };
    });
    after(() => {
      rmSync(home, { recursive: true, force: true });
      if (certs) rmSync(certs.dir, { recursive: true, force: true });
    });

    it('applies through a hangar agent; the agent token never reaches terraform', async () => {
      const workspaceId = await agentWorkspace('agent-app');
      const agent = startAgent(agentEnv(agentToken.secret, 'e2e-agent'));
      await agent.said(/registered as agent-\w+/);
      const dir = configDir(
        'agent-app',
        `resource "terraform_data" "a" {\n  input = "hello"\n  provisioner "local-exec" {\n    command = "echo HANGAR_VARS=$(env | grep -c '^HANGAR_')"\n  }\n}\noutput "greeting" {\n  value = terraform_data.a.output\n}\n`,
      );
      await ok(terraform(dir, ['init', '-input=false']));
      const apply = await ok(terraform(dir, ['apply', '-auto-approve', '-input=false']));
      assert.match(apply, /Executed by Hangar's runner \(agent-\w+\/0\)/);
      assert.match(apply, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed/);
      assert.match(apply, /HANGAR_VARS=0/, 'no HANGAR_ variable in the environment of terraform');
      assert.ok(!apply.includes(agentToken.secret));

      const current = await api(`${base}/workspaces/${workspaceId}/current-state-version`, 'GET', token, ca);
      assert.equal(current.status, 200);
      assert.equal(current.body.data.attributes.resources[0].type, 'terraform_data');
      const ws = await api(`${base}/workspaces/${workspaceId}`, 'GET', token, ca);
      assert.equal(ws.body.data.attributes.locked, false);
      const agents = await api(`${base}/agent-pools/${poolId}/agents`, 'GET', token, ca);
      const listed = agents.body.data.find((a: any) => a.attributes.name === 'e2e-agent');
      assert.ok(listed && ['idle', 'busy'].includes(listed.attributes.status), JSON.stringify(agents.body));

      // SIGTERM drains an idle agent at once: it reports `exited` and leaves with 0.
      agent.child.kill('SIGTERM');
      assert.equal(await exitWithin(agent, 20_000), 0, agent.output());
      const shown = await api(`${base}/agents/${listed.id}`, 'GET', token, ca);
      assert.equal(shown.body.data.attributes.status, 'exited');
    });

    it('a kill -9 of the agent mid-apply errors the run after the silence timeout, frees the workspace, runs nothing twice; SIGTERM drains an agent mid-apply', async () => {
      const workspaceId = await agentWorkspace('agent-slow');
      const agent = startAgent(agentEnv(agentToken.secret, 'doomed-agent'));
      await agent.said(/registered as/);
      const dir = configDir(
        'agent-slow',
        `resource "terraform_data" "slow" {\n  input = "slow"\n  provisioner "local-exec" {\n    command = "sleep 60"\n  }\n}\n`,
      );
      await ok(terraform(dir, ['init', '-input=false']));
      const cli = terraform(dir, ['apply', '-auto-approve', '-input=false']);
      const run = await waitForRun(workspaceId, ['applying']);
      // Killed in the middle of the apply: terraform is running the provisioner's sleep.
      const applying = await api(`${base}/runs/${run.id}?include=apply`, 'GET', token, ca);
      const logUrl = applying.body.included.find((i: any) => i.type === 'applies').attributes['log-read-url'];
      for (const until = Date.now() + 120_000; !/Provisioning with 'local-exec'/.test(await readLog(logUrl));) {
        assert.ok(Date.now() < until, 'the apply reached its provisioner');
        await new Promise((r) => setTimeout(r, 200));
      }
      process.kill(-agent.child.pid!, 'SIGKILL');
      await agent.exited;

      const errored = await waitForRun(workspaceId, ['errored'], 60_000);
      assert.equal(errored.id, run.id);
      const result = await cli;
      assert.notEqual(result.status, 0, result.out);
      const ws = await api(`${base}/workspaces/${workspaceId}`, 'GET', token, ca);
      assert.equal(ws.body.data.attributes.locked, false);
      const shown = await api(`${base}/runs/${run.id}?include=plan,apply`, 'GET', token, ca);
      const apply = shown.body.included.find((i: any) => i.type === 'applies');
      assert.equal(apply.attributes.status, 'errored');
      // The apply started once: one `applying` event, and its log names one runner once.
      const events = await api(`${base}/runs/${run.id}/run-events`, 'GET', token, ca);
      if (events.status === 200) assert.equal(events.body.data.filter((e: any) => e.attributes.action === 'applying').length, 1);
      const log = await readLog(apply.attributes['log-read-url']);
      assert.equal(log.match(/Executed by Hangar's runner/g)?.length, 1, log);

      // A new agent picks up new work, and never the errored job; SIGTERM in the middle of its
      // apply drains it: the apply finishes, then the agent leaves with 0.
      const next = startAgent(agentEnv(agentToken.secret, 'next-agent'));
      await next.said(/registered as/);
      writeFileSync(path.join(dir, 'main.tf'), readFileSync(path.join(dir, 'main.tf'), 'utf8').replace('sleep 60', 'sleep 3'));
      const second = terraform(dir, ['apply', '-auto-approve', '-input=false']);
      await next.said(/running the apply/);
      const secondRun = await waitForRun(workspaceId, ['applying']);
      const secondApply = await api(`${base}/runs/${secondRun.id}?include=apply`, 'GET', token, ca);
      const secondLog = secondApply.body.included.find((i: any) => i.type === 'applies').attributes['log-read-url'];
      for (const until = Date.now() + 120_000; !/Provisioning with 'local-exec'/.test(await readLog(secondLog));) {
        assert.ok(Date.now() < until, 'the second apply reached its provisioner');
        await new Promise((r) => setTimeout(r, 200));
      }
      next.child.kill('SIGTERM');
      await next.said(/draining: finishing 1 job/);
      const again = await ok(second);
      assert.match(again, /Apply complete!/);
      assert.equal((await api(`${base}/runs/${run.id}`, 'GET', token, ca)).body.data.attributes.status, 'errored');
      assert.equal(await exitWithin(next, 20_000), 0, next.output());
    });

    it('stops within seconds, non-zero, when its token is revoked', async () => {
      const t = await api(`${base}/agent-pools/${poolId}/authentication-tokens`, 'POST', token, ca, {
        data: { type: 'authentication-tokens', attributes: { description: 'to revoke' } },
      });
      const agent = startAgent(agentEnv(t.body.data.attributes.token, 'revoked-agent'));
      await agent.said(/registered as/);
      assert.equal((await api(`${base}/authentication-tokens/${t.body.data.id}`, 'DELETE', token, ca)).status, 204);
      const code = await exitWithin(agent, 10_000);
      assert.equal(code, 1, agent.output());
      assert.match(agent.output(), /refused the agent token/);
      assert.ok(!agent.output().includes(t.body.data.attributes.token));
    });

    it('explains a missing setting in one line', () => {
      const r = spawnSync(process.execPath, [MAIN, 'agent'], { env: { PATH: process.env.PATH ?? '', HANGAR_AGENT_URL: 'https://x.test' }, encoding: 'utf8' });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^configuration error: HANGAR_AGENT_TOKEN is not set/);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    });
  });
}
