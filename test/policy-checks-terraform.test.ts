// Policy checks with the real Terraform CLI: a `cloud` block, remote runs executed by the Hangar
// process this test starts, and Sentinel policy sets attached to the workspaces. The CLI reads the
// run's policy checks and their logs as on HCP Terraform: a hard-mandatory failure stops the apply,
// a soft-mandatory one waits for an override (made through the API while the CLI waits), and a
// sensitive policy set parameter decides a policy without its value showing anywhere.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'node:https';
import { after, before, describe, it } from 'node:test';
import * as tar from 'tar';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { hangar, scratchServer, type Server } from './helpers/process.ts';
import { terraformE2eSkip, tlsApi } from './helpers/terraform-cli.ts';
import { makeCertificates, type TestCertificates } from './helpers/tls.ts';

const skip = terraformE2eSkip();
if (skip) console.log(`# SKIP policy checks end-to-end: ${skip}`);

const SECRET = 'open-sesame-7f3a9c';
const NO_NEW_RESOURCES =
  '# Nothing may be created in this workspace.\nimport "tfplan/v2" as tfplan\n\ncreates = filter tfplan.resource_changes as _, rc { rc.change.actions contains "create" }\nprint("creating", length(creates), "resources")\nmain = rule { length(creates) is 0 }\n';

/** The bytes of a GET with the token (a download: not text). */
function download(url: string, token: string, ca: Buffer): Promise<{ status: number; type: string; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const api = tlsApi;

interface Answer {
  /** Once the CLI's output matches this, */
  when: RegExp;
  /** this runs, and what it returns (if anything) is typed on the CLI's standard input. */
  then: () => Promise<string | void>;
}

for (const dialect of dialects()) {
  describe(`policy checks with terraform [${dialect}]`, { skip }, () => {
    const home = mkdtempSync(path.join(tmpdir(), 'hangar-policy-tf-'));
    const start = scratchServer(dialect, POSTGRES_URL);
    let certs: TestCertificates;
    let server: Server;
    let host: string;
    let base: string;
    let token: string;
    let ca: Buffer;
    const org = `policies-${dialect}`;
    /** Everything any response, log or CLI output of this suite said, for the leak check at the end. */
    const seen: string[] = [];
    const call = async (url: string, method: string, body?: unknown, contentType?: string) => {
      const r = await api(url, method, token, ca, body, contentType);
      seen.push(r.raw);
      return r;
    };

    const env = () => ({
      PATH: process.env.PATH ?? '',
      HOME: home,
      TF_CLI_CONFIG_FILE: path.join(home, 'terraform.rc'),
      SSL_CERT_FILE: certs.caFile,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      NO_COLOR: '1',
    });
    /** `terraform <args>` in `dir`, answering prompts as `answers` say (in order). */
    function terraform(dir: string, args: string[], answers: Answer[] = []): Promise<{ status: number | null; out: string }> {
      return new Promise((resolve) => {
        const child = spawn('terraform', args, { cwd: dir, env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        let next = 0;
        let busy = false;
        const onOutput = (c: Buffer) => {
          out += c.toString();
          const answer = answers[next];
          if (busy || !answer || !answer.when.test(out)) return;
          busy = true;
          next++;
          void answer.then().then((typed) => {
            if (typed !== undefined) child.stdin.write(typed);
            busy = false;
          });
        };
        child.stdout.on('data', onOutput);
        child.stderr.on('data', onOutput);
        const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
        child.on('close', (status) => {
          clearTimeout(timer);
          seen.push(out);
          resolve({ status, out });
        });
      });
    }

    /** A directory with a `cloud` block for `workspace` and one `terraform_data` resource; initialised. */
    async function project(workspace: string): Promise<{ dir: string; wsId: string }> {
      const dir = path.join(home, workspace);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, 'main.tf'),
        `terraform {\n  cloud {\n    hostname     = "${host}"\n    organization = "${org}"\n    workspaces {\n      name = "${workspace}"\n    }\n  }\n}\n` +
          `resource "terraform_data" "a" {\n  input = "hello"\n}\n`,
      );
      const init = await terraform(dir, ['init', '-input=false']);
      assert.equal(init.status, 0, init.out);
      const ws = await call(`${base}/organizations/${org}/workspaces/${workspace}`, 'GET');
      assert.equal(ws.status, 200);
      return { dir, wsId: ws.body.data.id };
    }

    /** A policy set attached to the workspace, holding one policy; returns the set's id. */
    async function policySet(wsId: string, name: string, level: string, source: string): Promise<string> {
      const policy = await call(`${base}/organizations/${org}/policies`, 'POST', {
        data: { type: 'policies', attributes: { name, 'enforcement-level': level } },
      });
      assert.equal(policy.status, 201, policy.raw);
      const up = await call(`${base}/policies/${policy.body.data.id}/upload`, 'PUT', source, 'application/octet-stream');
      assert.equal(up.status, 204, up.raw);
      const set = await call(`${base}/organizations/${org}/policy-sets`, 'POST', {
        data: {
          type: 'policy-sets',
          attributes: { name: `${name}-set` },
          relationships: { policies: { data: [{ id: policy.body.data.id, type: 'policies' }] }, workspaces: { data: [{ id: wsId, type: 'workspaces' }] } },
        },
      });
      assert.equal(set.status, 201, set.raw);
      return set.body.data.id;
    }

    const latestRun = async (wsId: string) => (await call(`${base}/workspaces/${wsId}/runs`, 'GET')).body.data[0];
    const checkOf = async (runId: string) => {
      const list = await call(`${base}/runs/${runId}/policy-checks`, 'GET');
      assert.equal(list.status, 200);
      assert.equal(list.body.data.length, 1);
      return list.body.data[0];
    };

    before(async () => {
      certs = makeCertificates();
      ca = readFileSync(certs.caFile);
      const started = await start({
        HANGAR_TLS_CERT_FILE: certs.certFile,
        HANGAR_TLS_KEY_FILE: certs.keyFile,
        // Everything the server could log, so that the leak check sees the most it could write.
        HANGAR_LOG_LEVEL: 'debug',
        HANGAR_RUNNER_CONCURRENCY: '1',
      });
      server = started.server;
      host = `localhost:${new URL(server.url).port}`;
      base = `https://${host}/api/v2`;
      const boot = hangar(['bootstrap'], started.env);
      assert.equal(boot.status, 0, boot.stderr);
      token = boot.stdout.trim().split('\n').pop()!;
      writeFileSync(path.join(home, 'terraform.rc'), `credentials "${host}" {\n  token = "${token}"\n}\n`);
      const created = await call(`${base}/organizations`, 'POST', { data: { type: 'organizations', attributes: { name: org, email: 'ops@example.test' } } });
      assert.equal(created.status, 201);
    });
    after(() => {
      rmSync(home, { recursive: true, force: true });
      if (certs) rmSync(certs.dir, { recursive: true, force: true });
    });

    it('a hard-mandatory failure stops the apply: the CLI shows the check, exits non-zero, and no state is written', async () => {
      const { dir, wsId } = await project('hard');
      await policySet(wsId, 'no-new-resources', 'hard-mandatory', NO_NEW_RESOURCES);
      const apply = await terraform(dir, ['apply', '-auto-approve', '-input=false']);
      assert.notEqual(apply.status, 0, apply.out);
      assert.match(apply.out, /Plan: 1 to add/);
      assert.match(apply.out, /Organization Policy Check:/);
      assert.match(apply.out, /Sentinel Result: false/);
      assert.match(apply.out, /## Policy 1: no-new-resources-set\/no-new-resources \(hard-mandatory\)/);
      assert.match(apply.out, /Nothing may be created in this workspace\./);
      assert.match(apply.out, /creating 1 resources/);
      assert.match(apply.out, /FALSE - no-new-resources\.sentinel:6:1 - Rule "main"/);
      assert.match(apply.out, /Organization Policy Check hard failed/);
      assert.doesNotMatch(apply.out, /Apply complete/);

      const run = await latestRun(wsId);
      assert.equal(run.attributes.status, 'errored');
      assert.equal((await checkOf(run.id)).attributes.status, 'hard_failed');
      const state = await call(`${base}/workspaces/${wsId}/current-state-version`, 'GET');
      assert.equal(state.status, 404, 'no state was written');
      const ws = await call(`${base}/workspaces/${wsId}`, 'GET');
      assert.equal(ws.body.data.attributes.locked, false);
    });

    it("exports the hard-failed plan's Sentinel mocks: unpacked beside the policy, `hangar sentinel test` fails it as its check did", async () => {
      const ws = await call(`${base}/organizations/${org}/workspaces/hard`, 'GET');
      const run = await latestRun(ws.body.data.id);
      const created = await call(`${base}/plan-exports`, 'POST', {
        data: {
          type: 'plan-exports',
          attributes: { 'data-type': 'sentinel-mock-bundle-v0' },
          relationships: { plan: { data: { type: 'plans', id: run.relationships.plan.data.id } } },
        },
      });
      assert.equal(created.status, 201, created.raw);
      assert.equal(created.body.data.attributes.status, 'finished');
      const got = await download(`${base}/plan-exports/${created.body.data.id}/download`, token, ca);
      assert.equal(got.status, 200);
      assert.equal(got.type, 'application/x-gzip');

      // Unpacked beside the policy; its sentinel.hcl names the mocks (for `sentinel apply` there).
      const policies = path.join(home, 'mocks');
      const bundle = path.join(policies, 'bundle');
      const cases = path.join(policies, 'test', 'no-new-resources');
      mkdirSync(bundle, { recursive: true });
      mkdirSync(cases, { recursive: true });
      writeFileSync(path.join(home, 'bundle.tar.gz'), got.bytes);
      await tar.x({ file: path.join(home, 'bundle.tar.gz'), cwd: bundle });
      for (const name of ['mock-tfplan-v2.sentinel', 'mock-tfconfig-v2.sentinel', 'mock-tfstate-v2.sentinel', 'mock-tfrun.sentinel']) {
        seen.push(readFileSync(path.join(bundle, name), 'utf8'));
      }
      // The run as its check saw it: its id, organization and workspace.
      const tfrun = readFileSync(path.join(bundle, 'mock-tfrun.sentinel'), 'utf8');
      assert.match(tfrun, new RegExp(`^id = "${run.id}"$`, 'm'));
      assert.match(tfrun, new RegExp(`organization = \\{\\n\\t"name": "${org}",`));
      assert.match(tfrun, /\t"name": "hard",\n/);
      writeFileSync(path.join(policies, 'no-new-resources.sentinel'), NO_NEW_RESOURCES);
      // A test case: the bundle's mocks (its sentinel.hcl, the paths taken from the case's
      // folder) and the result the run's check had.
      const mocks = readFileSync(path.join(bundle, 'sentinel.hcl'), 'utf8').replaceAll('source = "', 'source = "../../bundle/');
      writeFileSync(path.join(cases, 'fails.hcl'), `${mocks}\ntest {\n  rules = { main = false }\n}\n`);
      const tested = hangar(['sentinel', 'test', policies, '--verbose'], {});
      assert.equal(tested.status, 0, tested.stdout + tested.stderr);
      assert.match(tested.stdout, /PASS/);
      assert.match(tested.stdout, /creating 1 resources/);
    });

    it('a soft-mandatory failure waits; overridden through the API while the CLI waits, the apply goes on', async () => {
      const { dir, wsId } = await project('soft');
      await policySet(wsId, 'small-changes', 'soft-mandatory', 'import "tfplan/v2" as tfplan\nmain = rule { length(tfplan.resource_changes) is 0 }\n');
      let overridden: any;
      const apply = await terraform(
        dir,
        ['apply'],
        [
          {
            when: /Do you want to override the soft failed policy check\?/,
            // Someone who may manage policies overrides it through the API; the CLI notices.
            then: async () => {
              const run = await latestRun(wsId);
              assert.equal(run.attributes.status, 'policy_override');
              const check = await checkOf(run.id);
              assert.equal(check.attributes.status, 'soft_failed');
              assert.equal(check.attributes.actions['is-overridable'], true);
              overridden = await call(`${base}/policy-checks/${check.id}/actions/override`, 'POST');
            },
          },
          { when: /Do you want to perform these actions in workspace "soft"\?/, then: async () => 'yes\n' },
        ],
      );
      assert.equal(overridden?.status, 200, overridden?.raw);
      assert.equal(overridden.body.data.attributes.status, 'overridden');
      assert.equal(apply.status, 0, apply.out);
      assert.match(apply.out, /Organization Policy Check:/);
      assert.match(apply.out, /## Policy 1: small-changes-set\/small-changes \(soft-mandatory\)/);
      assert.match(apply.out, /Apply complete! Resources: 1 added/);
      const state = await call(`${base}/workspaces/${wsId}/current-state-version`, 'GET');
      assert.equal(state.status, 200);
      // The run and its check, as a client reading them with include=policy_checks sees them.
      const runs = await call(`${base}/workspaces/${wsId}/runs?include=policy_checks`, 'GET');
      assert.equal(runs.body.data[0].attributes.status, 'applied');
      const included = runs.body.included.find((r: any) => r.type === 'policy-checks');
      assert.equal(included.attributes.status, 'overridden');
    });

    it('with -auto-approve the CLI overrides a soft-mandatory failure itself (its caller may), and applies', async () => {
      const { dir, wsId } = await project('soft-auto');
      await policySet(wsId, 'no-changes', 'soft-mandatory', 'main = rule { false }\n');
      const apply = await terraform(dir, ['apply', '-auto-approve', '-input=false']);
      assert.equal(apply.status, 0, apply.out);
      assert.match(apply.out, /Sentinel Result: false/);
      assert.match(apply.out, /Apply complete! Resources: 1 added/);
      const run = await latestRun(wsId);
      assert.equal((await checkOf(run.id)).attributes.status, 'overridden');
    });

    it('a sensitive policy set parameter decides the outcome; its value appears in no output, response or log', async () => {
      const { dir, wsId } = await project('secret');
      const setId = await policySet(
        wsId,
        'knows-the-word',
        'hard-mandatory',
        'param password\nprint("the password is", password)\nmain = rule { password is "' + SECRET + '" }\n',
      );
      const param = await call(`${base}/policy-sets/${setId}/parameters`, 'POST', {
        data: { type: 'vars', attributes: { key: 'password', value: 'wrong', category: 'policy-set', sensitive: true } },
      });
      assert.equal(param.status, 201, param.raw);

      const refused = await terraform(dir, ['apply', '-auto-approve', '-input=false']);
      assert.notEqual(refused.status, 0, refused.out);
      assert.match(refused.out, /the password is \*\*\*/);
      assert.match(refused.out, /hard failed/);

      const changed = await call(`${base}/policy-sets/${setId}/parameters/${param.body.data.id}`, 'PATCH', {
        data: { type: 'vars', id: param.body.data.id, attributes: { value: SECRET } },
      });
      assert.equal(changed.status, 200, changed.raw);
      const applied = await terraform(dir, ['apply', '-auto-approve', '-input=false']);
      assert.equal(applied.status, 0, applied.out);
      assert.match(applied.out, /Sentinel Result: true/);
      assert.match(applied.out, /the password is \*\*\*/);
      assert.match(applied.out, /Apply complete! Resources: 1 added/);

      // Every place the value could show: the checks, their logs, the runs and their plan logs.
      const runs = await call(`${base}/workspaces/${wsId}/runs?include=policy_checks,plan`, 'GET');
      for (const run of runs.body.data) {
        const check = await checkOf(run.id);
        await call(`${base}/policy-checks/${check.id}`, 'GET');
        const log = await call(`${base}/policy-checks/${check.id}/output`, 'GET');
        assert.match(log.raw, /the password is \*\*\*/);
      }
      await call(`${base}/policy-sets/${setId}/parameters`, 'GET');
      for (const text of [...seen, server.output()]) assert.ok(!text.includes(SECRET), 'the sensitive value leaked');
    });
  });
}
