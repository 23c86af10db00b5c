// Remote runs with the real Terraform CLI: a `cloud` block, a workspace in `remote` mode, and
// `terraform plan` / `apply` / `apply -destroy` executed by the Hangar process this test starts
// (its own runner, HANGAR_RUNNER_CONCURRENCY=1), the log streamed back to the CLI. Only the
// built-in `terraform_data` resource is used, so no provider is downloaded.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { hangar, scratchServer, type Server } from './helpers/process.ts';
import { heldStateServer } from './helpers/held-state.ts';
import { runTerraform, succeeded, terraformE2eSkip, tlsApi } from './helpers/terraform-cli.ts';
import { makeCertificates, type TestCertificates } from './helpers/tls.ts';

const skip = terraformE2eSkip();
if (skip) console.log(`# SKIP remote runs end-to-end: ${skip}`);

const api = tlsApi;

// Each database with blobs kept in it (the default), and once with HANGAR_BLOB_DIR: the
// configuration, plan files, logs and state of real runs then live, sealed, in files.
const variants = [...dialects().map((dialect) => ({ dialect, blobDir: false })), { dialect: 'sqlite' as const, blobDir: true }];

for (const { dialect, blobDir } of variants) {
  describe(`remote runs with terraform [${dialect}${blobDir ? ', HANGAR_BLOB_DIR' : ''}]`, { skip }, () => {
    const home = mkdtempSync(path.join(tmpdir(), 'hangar-runs-tf-'));
    const start = scratchServer(dialect, POSTGRES_URL);
    let certs: TestCertificates;
    let server: Server;
    let host: string;
    let base: string;
    let token: string;
    let ca: Buffer;
    const org = `runs-${dialect}${blobDir ? '-files' : ''}`;
    const blobs = path.join(home, 'blobs');

    const env = () => ({
      PATH: process.env.PATH ?? '',
      HOME: home,
      TF_CLI_CONFIG_FILE: path.join(home, 'terraform.rc'),
      SSL_CERT_FILE: certs.caFile,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      NO_COLOR: '1',
    });
    const terraform = (dir: string, args: string[]) => runTerraform(dir, args, env());
    const ok = succeeded;

    before(async () => {
      certs = makeCertificates();
      ca = readFileSync(certs.caFile);
      const started = await start({
        HANGAR_TLS_CERT_FILE: certs.certFile,
        HANGAR_TLS_KEY_FILE: certs.keyFile,
        HANGAR_LOG_LEVEL: 'warn',
        HANGAR_RUNNER_CONCURRENCY: '1',
        ...(blobDir ? { HANGAR_BLOB_DIR: blobs } : {}),
      });
      server = started.server;
      host = `localhost:${new URL(server.url).port}`;
      base = `https://${host}/api/v2`;
      const boot = hangar(['bootstrap'], started.env);
      assert.equal(boot.status, 0, boot.stderr);
      token = boot.stdout.trim().split('\n').pop()!;
      writeFileSync(path.join(home, 'terraform.rc'), `credentials "${host}" {\n  token = "${token}"\n}\n`);
      const created = await api(`${base}/organizations`, 'POST', token, ca, {
        data: { type: 'organizations', attributes: { name: org, email: 'ops@example.test' } },
      });
      assert.equal(created.status, 201);
    });
    after(() => {
      rmSync(home, { recursive: true, force: true });
      if (certs) rmSync(certs.dir, { recursive: true, force: true });
    });

    it('plans, applies and destroys on Hangar, streaming the log to the CLI', async () => {
      const dir = path.join(home, 'app');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "remote-app"\n    }\n  }\n}\n` +
          `resource "terraform_data" "a" {\n  input = "hello"\n}\noutput "greeting" {\n  value = terraform_data.a.output\n}\n`,
      );
      await ok(terraform(dir, ['init', '-input=false']));
      const ws = await api(`${base}/organizations/${org}/workspaces/remote-app`, 'GET', token, ca);
      assert.equal(ws.body.data.attributes['execution-mode'], 'remote');

      const plan = await ok(terraform(dir, ['plan', '-input=false']));
      assert.match(plan, /Running plan in HCP Terraform|Running plan in/);
      assert.match(plan, /Executed by Hangar's runner/);
      assert.match(plan, /Plan: 1 to add, 0 to change, 0 to destroy/);

      const apply = await ok(terraform(dir, ['apply', '-auto-approve', '-input=false']));
      assert.match(apply, /Running apply in/);
      assert.match(apply, /Apply complete! Resources: 1 added, 0 changed, 0 destroyed/);

      // The state the apply wrote is Hangar's: a state version of the run, the lock released.
      const after = await api(`${base}/organizations/${org}/workspaces/remote-app`, 'GET', token, ca);
      assert.equal(after.body.data.attributes.locked, false);
      assert.ok(after.body.data.attributes['runs-count'] >= 2);
      const current = await api(`${base}/workspaces/${ws.body.data.id}/current-state-version`, 'GET', token, ca);
      assert.equal(current.status, 200);
      assert.equal(current.body.data.attributes.resources[0].type, 'terraform_data');
      assert.match(await ok(terraform(dir, ['output', '-raw', 'greeting'])), /hello/);

      const noChange = await ok(terraform(dir, ['plan', '-input=false']));
      assert.match(noChange, /No changes/);

      const destroy = await ok(terraform(dir, ['apply', '-destroy', '-auto-approve', '-input=false']));
      assert.match(destroy, /Resources: 0 added, 0 changed, 1 destroyed/);

      if (blobDir) {
        // Every kind of run byte is a file there, and none shows what it holds.
        const files = readdirSync(blobs, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
        const families = new Set(files.map((e) => path.relative(blobs, e.parentPath).split(path.sep)[0]));
        for (const family of ['configuration-versions', 'jobs', 'state-versions']) assert.ok(families.has(family), `${family} in ${[...families]}`);
        for (const e of files) {
          const raw = readFileSync(path.join(e.parentPath, e.name), 'latin1');
          assert.ok(!raw.includes('terraform_data') && !raw.includes('hello'), `${e.name} is sealed`);
        }
      }
    });

    it('Ctrl-C during the remote plan of `terraform apply`: the CLI asks, calls the cancel action, the run ends canceled', async () => {
      const held = await heldStateServer();
      try {
        const dir = path.join(home, 'cancel');
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          path.join(dir, 'main.tf'),
          `terraform {\n  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "remote-cancel"\n    }\n  }\n}\n` +
            held.config(),
        );
        await ok(terraform(dir, ['init', '-input=false']));
        const reading = held.requested();
        // `terraform apply`, interactive: after Ctrl-C during its remote plan the CLI asks on standard
        // input whether to cancel the run. (Ctrl-C in `terraform plan` only stops following the log:
        // the CLI says so, and leaves the remote plan running.)
        const child = spawn('terraform', ['apply'], { cwd: dir, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let seen: { pattern: RegExp; resolve: () => void } | null = null;
        const onData = (c: Buffer) => {
          out += c.toString();
          if (seen && seen.pattern.test(out)) seen.resolve();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        const printed = (pattern: RegExp) =>
          new Promise<void>((resolve, reject) => {
            if (pattern.test(out)) return resolve();
            seen = { pattern, resolve };
            void exited.then(() => reject(new Error(`terraform exited before printing ${pattern}:\n${out}`)));
          });
        // The remote plan is busy reading the held state, and the CLI streams its log.
        await reading;
        await printed(/Executed by Hangar's runner/);
        const runId = /runs\/(run-[A-Za-z0-9]+)/.exec(out)![1]!;
        child.kill('SIGINT');
        await printed(/Do you want to cancel the remote operation\?/);
        child.stdin.write('yes\n');
        await printed(/The remote operation was successfully cancelled/);
        const requested = await api(`${base}/runs/${runId}`, 'GET', token, ca);
        assert.equal(requested.body.data.attributes.status, 'planning');
        assert.match(requested.body.data.attributes['force-cancel-available-at'], /Z$/);
        held.release();
        await exited;
        for (let status = ''; status !== 'canceled'; await new Promise((r) => setTimeout(r, 100))) {
          status = (await api(`${base}/runs/${runId}`, 'GET', token, ca)).body.data.attributes.status;
          assert.ok(['planning', 'canceled'].includes(status), status);
        }
        const ws = await api(`${base}/organizations/${org}/workspaces/remote-cancel`, 'GET', token, ca);
        assert.equal(ws.body.data.attributes.locked, false);
      } finally {
        await held.close();
      }
    });

    it('Ctrl-C during the remote apply of `terraform apply -auto-approve` cancels without asking; the interrupted apply’s state is kept', async () => {
      const dir = path.join(home, 'cancel-apply');
      mkdirSync(dir, { recursive: true });
      const marker = path.join(home, 'cancel-apply.marker');
      writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "remote-cancel-apply"\n    }\n  }\n}\n` +
          `resource "terraform_data" "first" {\n  input = "kept"\n}\n` +
          `resource "terraform_data" "slow" {\n  depends_on = [terraform_data.first]\n  provisioner "local-exec" {\n    command = "touch ${marker} && exec sleep 300"\n  }\n}\n`,
      );
      await ok(terraform(dir, ['init', '-input=false']));
      const child = spawn('terraform', ['apply', '-auto-approve', '-input=false'], { cwd: dir, env: env() });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      // The remote apply is in its provisioner (the first resource exists by then).
      for (const end = Date.now() + 120_000; !existsSync(marker); await new Promise((r) => setTimeout(r, 50))) {
        assert.ok(Date.now() < end && child.exitCode === null, `the apply never reached its provisioner:\n${out}`);
      }
      child.kill('SIGINT');
      await exited;
      assert.match(out, /The remote operation was successfully cancelled/);
      const runId = /runs\/(run-[A-Za-z0-9]+)/.exec(out)![1]!;
      let run: any;
      for (let status = ''; status !== 'canceled'; await new Promise((r) => setTimeout(r, 100))) {
        run = await api(`${base}/runs/${runId}`, 'GET', token, ca);
        status = run.body.data.attributes.status;
        assert.ok(['applying', 'canceled'].includes(status), status);
      }
      const ws = await api(`${base}/organizations/${org}/workspaces/remote-cancel-apply`, 'GET', token, ca);
      assert.equal(ws.body.data.attributes.locked, false);
      const state = await api(`${base}/workspaces/${ws.body.data.id}/current-state-version`, 'GET', token, ca);
      assert.equal(state.status, 200);
      assert.ok(
        state.body.data.attributes.resources.some((r: any) => r.name === 'first'),
        JSON.stringify(state.body.data.attributes.resources),
      );
    });

    it('workspace variables reach the run, a sensitive one never shown', async () => {
      const dir = path.join(home, 'vars');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "remote-vars"\n    }\n  }\n}\n` +
          `variable "greeting" {}\nvariable "token" {\n  sensitive = true\n}\n` +
          `resource "terraform_data" "a" {\n  input = var.greeting\n}\nresource "terraform_data" "b" {\n  input = var.token\n}\n` +
          `output "greeting" {\n  value = terraform_data.a.output\n}\n`,
      );
      await ok(terraform(dir, ['init', '-input=false']));
      const ws = await api(`${base}/organizations/${org}/workspaces/remote-vars`, 'GET', token, ca);
      for (const attributes of [
        { key: 'greeting', value: 'hello-from-a-workspace-variable', category: 'terraform' },
        { key: 'token', value: 'sup3r-s3cret-t0ken', category: 'terraform', sensitive: true },
      ]) {
        const created = await api(`${base}/workspaces/${ws.body.data.id}/vars`, 'POST', token, ca, { data: { type: 'vars', attributes } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      }
      const apply = await ok(terraform(dir, ['apply', '-auto-approve', '-input=false']));
      assert.match(apply, /Apply complete! Resources: 2 added/);
      assert.match(apply, /hello-from-a-workspace-variable/);
      assert.doesNotMatch(apply, /sup3r-s3cret-t0ken/);
      const runs = await api(`${base}/workspaces/${ws.body.data.id}/runs?include=plan`, 'GET', token, ca);
      const planId = runs.body.data[0].relationships.plan.data.id;
      const json = await api(`${base}/plans/${planId}/json-output`, 'GET', token, ca);
      assert.equal(json.status, 200);
      assert.doesNotMatch(JSON.stringify(json.body), /sup3r-s3cret-t0ken/);
    });
  });
}
