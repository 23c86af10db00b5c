// The real Terraform CLI (the client every Hangar user has) against a Hangar process this test
// starts over HTTPS, with a throw-away certificate authority: `cloud` block and `remote`
// backend, state stored, versioned and locked in Hangar. Nothing on the system changes: the CA
// reaches Terraform through SSL_CERT_FILE, the token through a CLI config file of its own, and
// HOME points at a temporary directory. Only the built-in `terraform_data` resource is used, so
// no provider is downloaded.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { hangar, scratchServer, type Server } from './helpers/process.ts';
import { terraformE2eSkip, tlsApi } from './helpers/terraform-cli.ts';
import { makeCertificates, type TestCertificates } from './helpers/tls.ts';

const skip = terraformE2eSkip();
if (skip) console.log(`# SKIP terraform end-to-end: ${skip}`);

const api = tlsApi;

for (const dialect of dialects()) {
  describe(`terraform end-to-end [${dialect}]`, { skip }, () => {
    const home = mkdtempSync(path.join(tmpdir(), 'hangar-terraform-'));
    const start = scratchServer(dialect, POSTGRES_URL);
    let certs: TestCertificates;
    let server: Server;
    let host: string; // localhost:PORT, as Terraform names the service
    let base: string;
    let token: string;
    let ca: Buffer;
    const org = `tf-${dialect}`;

    /** `terraform <args>` in `dir`, with an environment of its own (nothing inherited but PATH). */
    function terraform(dir: string, args: string[], extraEnv: Record<string, string> = {}) {
      const r = spawnSync('terraform', [...args], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          TF_CLI_CONFIG_FILE: path.join(home, 'terraform.rc'),
          SSL_CERT_FILE: certs.caFile,
          CHECKPOINT_DISABLE: '1',
          TF_IN_AUTOMATION: '1',
          NO_COLOR: '1',
          ...extraEnv,
        },
      });
      return { status: r.status, out: `${r.stdout}${r.stderr}` };
    }
    const ok = (r: { status: number | null; out: string }) => {
      assert.equal(r.status, 0, r.out);
      return r.out;
    };
    function project(name: string, backend: string, body: string): string {
      const dir = path.join(home, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'main.tf'), `terraform {\n${backend}\n}\n${body}`);
      return dir;
    }

    before(async () => {
      certs = makeCertificates();
      ca = readFileSync(certs.caFile);
      const started = await start({ HANGAR_TLS_CERT_FILE: certs.certFile, HANGAR_TLS_KEY_FILE: certs.keyFile, HANGAR_LOG_LEVEL: 'warn' });
      server = started.server;
      const port = new URL(server.url).port;
      host = `localhost:${port}`;
      base = `https://${host}/api/v2`;
      const boot = hangar(['bootstrap'], started.env);
      assert.equal(boot.status, 0, boot.stderr);
      token = boot.stdout.trim().split('\n').pop()!;
      writeFileSync(path.join(home, 'terraform.rc'), `credentials "${host}" {\n  token = "${token}"\n}\n`);
      const created = await api(`${base}/organizations`, 'POST', token, ca, {
        data: { type: 'organizations', attributes: { name: org, email: 'ops@example.test' } },
      });
      assert.equal(created.status, 201);
      // These tests are about state kept in Hangar, with Terraform executing on this machine:
      // the organization's workspaces run in `local` mode (runs-terraform.test.ts covers `remote`).
      const local = await api(`${base}/organizations/${org}`, 'PATCH', token, ca, {
        data: { type: 'organizations', attributes: { 'default-execution-mode': 'local' } },
      });
      assert.equal(local.status, 200);
    });
    after(() => {
      rmSync(home, { recursive: true, force: true });
      if (certs) rmSync(certs.dir, { recursive: true, force: true });
    });

    const body = `
variable "x" {
  default = "one"
}
resource "terraform_data" "a" {
  input = var.x
}
output "greeting" {
  value = "hello-\${terraform_data.a.output}"
}
output "secret" {
  value     = "s3cr3t-value"
  sensitive = true
}
`;

    it('init, apply, output, state list, a no-change plan and a second apply through the cloud block', async () => {
      const dir = project(
        'cloud',
        `  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "app"\n    }\n  }`,
        body,
      );
      ok(terraform(dir, ['init', '-input=false']));
      assert.match(ok(terraform(dir, ['apply', '-auto-approve', '-input=false'])), /Apply complete! Resources: 1 added/);
      assert.match(ok(terraform(dir, ['output', '-raw', 'greeting'])), /^hello-one$/);
      assert.equal(ok(terraform(dir, ['output', '-raw', 'secret'])), 's3cr3t-value');
      assert.equal(ok(terraform(dir, ['state', 'list'])).trim(), 'terraform_data.a');
      const plan = terraform(dir, ['plan', '-detailed-exitcode', '-input=false']);
      assert.equal(plan.status, 0, plan.out); // 0: no changes (2 would mean a diff)
      assert.match(ok(terraform(dir, ['apply', '-auto-approve', '-input=false', '-var', 'x=two'])), /1 changed/);
      assert.equal(ok(terraform(dir, ['output', '-raw', 'greeting'])), 'hello-two');

      // The state is Hangar's: two versions, the current one serial 2, the lock released.
      const ws = await api(`${base}/organizations/${org}/workspaces/app`, 'GET', token, ca);
      assert.equal(ws.body.data.attributes.locked, false);
      const list = await api(`${base}/state-versions?filter[organization][name]=${org}&filter[workspace][name]=app`, 'GET', token, ca);
      assert.equal(list.body.data.length, 2);
      const current = await api(`${base}/workspaces/${ws.body.data.id}/current-state-version`, 'GET', token, ca);
      assert.equal(current.body.data.attributes.serial, 2);
      assert.equal(current.body.data.attributes.resources[0].type, 'terraform_data');
      // Sensitive values stay out of the outputs list.
      const outputs = await api(`${base}/workspaces/${ws.body.data.id}/current-state-version-outputs`, 'GET', token, ca);
      assert.ok(!JSON.stringify(outputs.body).includes('s3cr3t-value'));
    });

    it('`state push -force` replaces the state with another lineage, leaving no pending version and no lock', async () => {
      // Local execution: the CLI uses Hangar for the state only.
      const made = await api(`${base}/organizations/${org}/workspaces`, 'POST', token, ca, {
        data: { type: 'workspaces', attributes: { name: 'forced', 'execution-mode': 'local' } },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const id = made.body.data.id;
      // The remote backend: the cloud block's state manager drops `-force` before it reaches the
      // API (Terraform 1.11 sends `force: false`), which TFE would refuse as well.
      const dir = project(
        'forced',
        `  backend "remote" {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "forced"\n    }\n  }`,
        body,
      );
      ok(terraform(dir, ['init', '-input=false']));
      ok(terraform(dir, ['apply', '-auto-approve', '-input=false']));
      const pulled = JSON.parse(ok(terraform(dir, ['state', 'pull'])));
      const replacement = { ...pulled, lineage: '00000000-1111-2222-3333-444444444444', serial: 1 };
      writeFileSync(path.join(dir, 'replacement.tfstate'), JSON.stringify(replacement));
      const refused = terraform(dir, ['state', 'push', 'replacement.tfstate']);
      assert.notEqual(refused.status, 0, refused.out);
      ok(terraform(dir, ['state', 'push', '-force', 'replacement.tfstate']));

      assert.equal(JSON.parse(ok(terraform(dir, ['state', 'pull']))).lineage, replacement.lineage);
      const list = await api(`${base}/state-versions?filter[organization][name]=${org}&filter[workspace][name]=forced`, 'GET', token, ca);
      assert.deepEqual(
        list.body.data.map((v: any) => v.attributes.status),
        ['finalized', 'finalized'],
      );
      const ws = await api(`${base}/workspaces/${id}`, 'GET', token, ca);
      assert.equal(ws.body.data.attributes.locked, false);
    });

    it('refuses a plan while the lock is held elsewhere, and plans again once it is released', async () => {
      const dir = path.join(home, 'cloud');
      const ws = await api(`${base}/organizations/${org}/workspaces/app`, 'GET', token, ca);
      const id = ws.body.data.id;
      assert.equal(
        (await api(`${base}/workspaces/${id}/actions/lock`, 'POST', token, ca, { data: { type: '', attributes: { reason: 'held elsewhere' } } })).status,
        200,
      );
      const refused = terraform(dir, ['plan', '-input=false', '-lock-timeout=0s']);
      assert.equal(refused.status, 1, refused.out);
      assert.match(refused.out, /Error acquiring the state lock/);
      assert.equal((await api(`${base}/workspaces/${id}/actions/unlock`, 'POST', token, ca)).status, 200);
      ok(terraform(dir, ['plan', '-input=false']));
    });

    it('works through the remote backend with a workspace prefix', async () => {
      const dir = project(
        'remote',
        `  backend "remote" {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      prefix = "net-"\n    }\n  }`,
        `resource "terraform_data" "b" {\n  input = terraform.workspace\n}\noutput "ws" {\n  value = terraform_data.b.output\n}\n`,
      );
      // Terraform's remote backend refuses to initialise a prefix no workspace has yet (`No
      // existing workspaces`): the first one is made through the API, as in TFE's UI.
      const first = await api(`${base}/organizations/${org}/workspaces`, 'POST', token, ca, { data: { type: 'workspaces', attributes: { name: 'net-dev' } } });
      assert.equal(first.status, 201);
      ok(terraform(dir, ['init', '-input=false'], { TF_WORKSPACE: 'dev' }));
      ok(terraform(dir, ['workspace', 'select', 'dev']));
      assert.match(ok(terraform(dir, ['apply', '-auto-approve', '-input=false'])), /Resources: 1 added/);
      assert.equal(ok(terraform(dir, ['output', '-raw', 'ws'])), 'dev');
      assert.match(ok(terraform(dir, ['workspace', 'list'])), /\* dev/);
      const ws = await api(`${base}/organizations/${org}/workspaces/net-dev`, 'GET', token, ca);
      assert.equal(ws.status, 200);
      // An empty workspace is deleted for real (safe delete); one holding resources is refused.
      ok(terraform(dir, ['workspace', 'new', 'tmp']));
      ok(terraform(dir, ['workspace', 'select', 'dev']));
      ok(terraform(dir, ['workspace', 'delete', 'tmp']));
      assert.equal((await api(`${base}/organizations/${org}/workspaces/net-tmp`, 'GET', token, ca)).status, 404);
    });

    it('selects workspaces by tags: `workspace new` creates them tagged, and an untagged one stays out', async () => {
      // An untagged workspace that a tag filter must not adopt.
      assert.equal(
        (await api(`${base}/organizations/${org}/workspaces`, 'POST', token, ca, { data: { type: 'workspaces', attributes: { name: 'stranger' } } })).status,
        201,
      );
      const dir = project(
        'tagged',
        `  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      tags = ["e2e"]\n    }\n  }`,
        body,
      );
      // The first tagged workspace through the API (Terraform's non-interactive init needs one);
      // init selects it, never `stranger`; `workspace new` then makes another, tagged.
      const first = await api(`${base}/organizations/${org}/workspaces`, 'POST', token, ca, {
        data: { type: 'workspaces', attributes: { name: 'tagged-zero', 'tag-names': ['e2e'] } },
      });
      assert.equal(first.status, 201);
      ok(terraform(dir, ['init', '-input=false'], { TF_WORKSPACE: 'tagged-zero' }));
      ok(terraform(dir, ['workspace', 'new', 'tagged-one']));
      assert.match(ok(terraform(dir, ['apply', '-auto-approve', '-input=false'])), /Resources: 1 added/);
      const list = ok(terraform(dir, ['workspace', 'list']));
      assert.match(list, /tagged-one/);
      assert.doesNotMatch(list, /stranger|app/);
      const tagged = await api(`${base}/organizations/${org}/workspaces?search[tags]=e2e`, 'GET', token, ca);
      assert.deepEqual(tagged.body.data.map((w: any) => w.attributes.name).sort(), ['tagged-one', 'tagged-zero']);
    });
  });
}
