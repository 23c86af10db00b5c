// The Terraform imports of the Sentinel runtime (tfplan/v2, tfconfig/v2, tfstate/v2, tfrun): built
// from a real `terraform show -json` of a plan and a state made here with the terraform binary
// (only the built-in terraform_data resource, so no registry access), and from small hand-written
// documents.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { sentinelCommand } from '../src/sentinel/cli.ts';
import { evaluatePolicy, type ImportSpec } from '../src/sentinel/index.ts';
import { mockBundle } from '../src/sentinel/mocks.ts';
import { tfconfigFromJson } from '../src/sentinel/tfconfig.ts';
import { tfplanFromJson } from '../src/sentinel/tfplan.ts';
import { tfrunFromRun } from '../src/sentinel/tfrun.ts';
import { tfstateFromJson } from '../src/sentinel/tfstate.ts';

const run = promisify(execFile);

function hasTerraform(): boolean {
  try {
    execFileSync('terraform', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const ROOT_TF = `
variable "greeting" {
  type        = string
  default     = "hello"
  description = "what a says"
}
variable "secret" {
  type      = string
  default   = "s3cret"
  sensitive = true
}
resource "terraform_data" "a" {
  input = var.greeting
}
resource "terraform_data" "b" {
  count      = 2
  input      = "b-\${count.index}"
  depends_on = [terraform_data.a]
  provisioner "local-exec" {
    command = "true"
  }
}
module "child" {
  source = "./child"
  name   = terraform_data.a.output
}
output "greeting" {
  value = terraform_data.a.output
}
output "secret" {
  value     = var.secret
  sensitive = true
}
`;

const CHILD_TF = `
variable "name" {
  type        = string
  description = "a name"
}
resource "terraform_data" "c" {
  input = var.name
}
output "c" {
  value = terraform_data.c.id
}
`;

/** Evaluates a policy against the given imports' data; fails the test with the error if any. */
function check(source: string, data: Record<string, unknown>) {
  const imports: Record<string, ImportSpec> = {};
  for (const [name, d] of Object.entries(data)) imports[name] = { data: d };
  const r = evaluatePolicy({ source, filename: 'p.sentinel', imports });
  assert.equal(r.error, undefined, r.error && `${r.error.line}:${r.error.column}: ${r.error.message}`);
  return r;
}

describe('Terraform imports from a real terraform plan and apply', { skip: !hasTerraform() && 'terraform is not installed' }, () => {
  let dir: string;
  let planFile: string;
  let stateFile: string;
  let plan: unknown;
  let state: unknown;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'hangar-tfimports-'));
    mkdirSync(path.join(dir, 'child'));
    writeFileSync(path.join(dir, 'main.tf'), ROOT_TF);
    writeFileSync(path.join(dir, 'child', 'main.tf'), CHILD_TF);
    const env = { ...process.env, TF_IN_AUTOMATION: '1', TF_INPUT: '0', CHECKPOINT_DISABLE: '1' };
    const tf = async (...args: string[]) => (await run('terraform', args, { cwd: dir, env, maxBuffer: 64 << 20 })).stdout;
    await tf('init', '-no-color');
    await tf('plan', '-no-color', '-out=plan.bin');
    plan = JSON.parse(await tf('show', '-json', 'plan.bin'));
    await tf('apply', '-no-color', '-auto-approve', 'plan.bin');
    state = JSON.parse(await tf('show', '-json'));
    planFile = path.join(dir, 'plan.json');
    stateFile = path.join(dir, 'state.json');
    writeFileSync(planFile, JSON.stringify(plan));
    writeFileSync(stateFile, JSON.stringify(state));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('tfplan/v2: changes, planned values, variables and outputs', () => {
    const r = check(
      `import "tfplan/v2" as tfplan
import "strings"
creates = rule { all tfplan.resource_changes as _, rc { rc.change.actions is ["create"] } }
addresses = rule { length(tfplan.resource_changes) is 4 and all ["module.child.terraform_data.c", "terraform_data.a", "terraform_data.b[0]", "terraform_data.b[1]"] as a { a in keys(tfplan.resource_changes) } }
child = rule { tfplan.resource_changes["module.child.terraform_data.c"].module_address is "module.child" }
indexed = rule { tfplan.resource_changes["terraform_data.b[1]"].index is 1 and tfplan.resource_changes["terraform_data.a"].index is null }
after_input = rule { tfplan.resource_changes["terraform_data.b[0]"].change.after.input is "b-0" }
unknown_id = rule { tfplan.resource_changes["terraform_data.a"].change.after_unknown.id is true }
planned = rule { tfplan.planned_values.resources["terraform_data.a"].values.input is "hello" }
variable = rule { tfplan.variables.greeting.value is "hello" and tfplan.variables.greeting.name is "greeting" }
version = rule { strings.has_prefix(tfplan.terraform_version, "1.") }
unknown_output = rule { "after" not in keys(tfplan.output_changes.greeting.change) and tfplan.output_changes.greeting.change.after_unknown }
secret_output = rule { tfplan.planned_values.outputs.secret.sensitive and (tfplan.planned_values.outputs.greeting.value else "unknown") is "unknown" }
provider = rule { tfplan.resource_changes["terraform_data.a"].provider_name is "terraform.io/builtin/terraform" }
raw = rule { tfplan.raw.terraform_version is tfplan.terraform_version and length(tfplan.raw.resource_changes) is 4 }
main = rule { creates and addresses and child and indexed and after_input and unknown_id and planned and variable and version and unknown_output and secret_output and provider and raw }
`,
      { 'tfplan/v2': tfplanFromJson(plan) },
    );
    assert.equal(r.result, true, JSON.stringify(r.rules));
  });

  it('tfconfig/v2: resources, provisioners, variables, outputs, module calls and providers', () => {
    const r = check(
      `import "tfconfig/v2" as tfconfig
var_default = rule { tfconfig.variables.greeting.default is "hello" and tfconfig.variables.greeting.description is "what a says" }
required = rule { tfconfig.variables["module.child:name"].default is null and tfconfig.variables["module.child:name"].module_address is "module.child" }
call = rule { tfconfig.module_calls.child.source is "./child" and "terraform_data.a" in tfconfig.module_calls.child.config.name.references }
count = rule { tfconfig.resources["terraform_data.b"].count.constant_value is 2 }
depends = rule { tfconfig.resources["terraform_data.b"].depends_on is ["terraform_data.a"] }
references = rule { tfconfig.resources["terraform_data.a"].config.input.references is ["var.greeting"] }
child_resource = rule { tfconfig.resources["module.child.terraform_data.c"].module_address is "module.child" }
provisioner = rule { tfconfig.provisioners["terraform_data.b:0"].type is "local-exec" and tfconfig.provisioners["terraform_data.b:0"].config.command.constant_value is "true" }
output = rule { tfconfig.outputs.secret.sensitive and tfconfig.outputs["module.child:c"].value.references contains "terraform_data.c" }
provider = rule { tfconfig.providers.terraform.name is "terraform" }
main = rule { var_default and required and call and count and depends and references and child_resource and provisioner and output and provider }
`,
      { 'tfconfig/v2': tfconfigFromJson(plan) },
    );
    assert.equal(r.result, true, JSON.stringify(r.rules));
  });

  it('tfstate/v2: resources and outputs after the apply, and the prior state of the plan', () => {
    const r = check(
      `import "tfstate/v2" as tfstate
value = rule { tfstate.resources["terraform_data.a"].values.output is "hello" }
child = rule { tfstate.resources["module.child.terraform_data.c"].values.input is "hello" and tfstate.resources["module.child.terraform_data.c"].module_address is "module.child" }
depends = rule { tfstate.resources["terraform_data.b[0]"].depends_on is ["terraform_data.a"] }
flags = rule { tfstate.resources["terraform_data.a"].tainted is false and tfstate.resources["terraform_data.a"].deposed_key is "" }
output = rule { tfstate.outputs.greeting.value is "hello" and tfstate.outputs.secret.sensitive }
count = rule { length(tfstate.resources) is 4 }
main = rule { value and child and depends and flags and output and count }
`,
      { 'tfstate/v2': tfstateFromJson(state) },
    );
    assert.equal(r.result, true, JSON.stringify(r.rules));
    const prior = check(`import "tfstate/v2" as tfstate\nmain = rule { length(tfstate.resources) is 0 }`, {
      'tfstate/v2': tfstateFromJson((plan as { prior_state: unknown }).prior_state),
    });
    assert.equal(prior.result, true);
  });

  it('hangar sentinel apply --plan --state --run gives all four imports', () => {
    const policy = path.join(dir, 'all.sentinel');
    const runFile = path.join(dir, 'run.json');
    writeFileSync(runFile, JSON.stringify({ id: 'run-1', workspace: { name: 'prod', tags: ['web'] }, organization: { name: 'acme' } }));
    writeFileSync(
      policy,
      `import "tfplan/v2" as tfplan
import "tfconfig/v2" as tfconfig
import "tfstate/v2" as tfstate
import "tfrun"
main = rule {
  tfplan.resource_changes["terraform_data.a"].change.actions is ["create"] and
  tfconfig.module_calls.child.source is "./child" and
  tfstate.resources["terraform_data.a"].values.input is "hello" and
  tfrun.workspace.name is "prod" and tfrun.organization.name is "acme" and "web" in tfrun.workspace.tags
}
`,
    );
    const out: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l), env: {} };
    assert.equal(sentinelCommand(['apply', policy, '--plan', planFile, '--state', stateFile, '--run', runFile], io), 0, out.join('\n'));
    // Without --state, tfstate/v2 is the plan's prior state (empty here); without --run, tfrun is a speculative run.
    out.length = 0;
    writeFileSync(policy, `import "tfstate/v2" as tfstate\nimport "tfrun"\nmain = rule { length(tfstate.resources) is 0 and tfrun.speculative }\n`);
    assert.equal(sentinelCommand(['apply', policy, '--plan', planFile], io), 0, out.join('\n'));
    out.length = 0;
    assert.equal(sentinelCommand(['apply', policy, '--state', path.join(dir, 'missing.json')], io), 2);
    assert.match(out.join('\n'), /cannot read the state/);
  });

  it('a mock bundle of the plan gives a policy the same imports as the run, and `sentinel test` runs with it', () => {
    const description = {
      id: 'run-1',
      message: 'quotes " and \\ and a\nnewline, \u00e9 and \u{1f680}',
      workspace: { name: 'prod', tags: ['web'] },
      organization: { name: 'acme' },
      variables: { __proto__: { category: 'env', sensitive: true } } as Record<string, { category: string; sensitive: boolean }>,
    };
    const bundle = mockBundle(JSON.stringify(plan), description);
    assert.deepEqual(bundle.map((f) => f.name).sort(), [
      'mock-tfconfig-v2.sentinel',
      'mock-tfplan-v2.sentinel',
      'mock-tfrun.sentinel',
      'mock-tfstate-v2.sentinel',
      'sentinel.hcl',
    ]);
    const source = (name: string) => bundle.find((f) => f.name === name)!.text;
    const imported: Array<[string, string, Record<string, unknown>]> = [
      ['tfplan/v2', 'mock-tfplan-v2.sentinel', tfplanFromJson(plan)],
      ['tfconfig/v2', 'mock-tfconfig-v2.sentinel', tfconfigFromJson(plan)],
      ['tfstate/v2', 'mock-tfstate-v2.sentinel', tfstateFromJson((plan as { prior_state?: unknown }).prior_state ?? {})],
      ['tfrun', 'mock-tfrun.sentinel', tfrunFromRun(description)],
    ];
    for (const [name, file, data] of imported) {
      for (const key of Object.keys(data)) {
        const policy = `import "json"\nimport "m"\nprint(json.marshal(m.${key}))\nmain = rule { true }\n`;
        const seen = (spec: ImportSpec) => {
          const r = evaluatePolicy({ source: policy, filename: 'p.sentinel', imports: { m: spec } });
          assert.equal(r.error, undefined, r.error && `${name}.${key}: ${r.error.line}:${r.error.column}: ${r.error.message}`);
          return r.prints.join('\n');
        };
        assert.equal(seen({ source: source(file), filename: file }), seen({ data }), `${name}.${key}`);
      }
    }

    // Sentinel source cannot hold half a UTF-16 pair (its escape is an error): U+FFFD stands in.
    const lone = mockBundle('', { message: 'a lone \ud800' }).find((f) => f.name === 'mock-tfrun.sentinel')!;
    const r = evaluatePolicy({
      source: 'import "m"\nprint(m.message)\nmain = rule { true }\n',
      filename: 'p.sentinel',
      imports: { m: { source: lone.text, filename: lone.name } },
    });
    assert.deepEqual(r.prints, ['a lone \ufffd']);

    // Unpacked beside a policy's test cases, the bundle's sentinel.hcl mocks every import.
    const tests = mkdtempSync(path.join(tmpdir(), 'hangar-mock-bundle-'));
    try {
      mkdirSync(path.join(tests, 'test', 'prod'), { recursive: true });
      for (const f of bundle) writeFileSync(path.join(tests, 'test', 'prod', f.name), f.text);
      writeFileSync(
        path.join(tests, 'prod.sentinel'),
        `import "tfplan/v2" as tfplan\nimport "tfrun"\nmain = rule { tfplan.resource_changes["terraform_data.a"].change.actions is ["create"] and tfrun.workspace.name is "prod" }\n`,
      );
      // A test case is the bundle's sentinel.hcl (its mocks) and the expected result.
      writeFileSync(path.join(tests, 'test', 'prod', 'pass.hcl'), `${source('sentinel.hcl')}\ntest {\n  rules = { main = true }\n}\n`);
      const out: string[] = [];
      const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(l), env: {} };
      assert.equal(sentinelCommand(['test', tests], io), 0, out.join('\n'));
      assert.match(out.join('\n'), /PASS/);
    } finally {
      rmSync(tests, { recursive: true, force: true });
    }
  });
});

describe('Terraform imports from hand-written documents', () => {
  it('tfplan/v2 keeps an unknown output absent and maps drift like changes', () => {
    const data = tfplanFromJson({
      planned_values: { outputs: { known: { sensitive: false, value: 1 }, unknown: { sensitive: false } } },
      output_changes: { unknown: { actions: ['create'], before: null, after_unknown: true } },
      resource_drift: [{ address: 'x.y', mode: 'managed', type: 'x', name: 'y', change: { actions: ['update'], before: { a: 1 }, after: { a: 2 } } }],
    }) as Record<string, any>;
    assert.deepEqual(data.planned_values.outputs, { known: { name: 'known', sensitive: false, value: 1 }, unknown: { name: 'unknown', sensitive: false } });
    assert.equal('after' in data.output_changes.unknown.change, false);
    assert.deepEqual(data.resource_drift['x.y'].change.after, { a: 2 });
    assert.equal(data.resource_drift['x.y'].module_address, '');
    assert.deepEqual(tfplanFromJson(null), {
      terraform_version: '',
      variables: {},
      planned_values: { outputs: {}, resources: {} },
      resource_changes: {},
      resource_drift: {},
      output_changes: {},
      raw: {},
    });
  });

  it('tfconfig/v2 keys nested modules, providers and provisioners as HCP does', () => {
    const data = tfconfigFromJson({
      configuration: {
        provider_config: {
          aws: {
            name: 'aws',
            full_name: 'registry.terraform.io/hashicorp/aws',
            version_constraint: '~> 5.0',
            expressions: { region: { constant_value: 'eu-west-1' } },
          },
          'module.a.module.b:aws': { name: 'aws', module_address: 'module.a.module.b', alias: 'east' },
        },
        root_module: {
          module_calls: {
            a: {
              source: 'app.terraform.io/acme/a/aws',
              version_constraint: '1.2.0',
              count_expression: { constant_value: 1 },
              module: {
                module_calls: {
                  b: {
                    source: './b',
                    module: {
                      resources: [
                        {
                          address: 'aws_s3_bucket.x',
                          mode: 'managed',
                          type: 'aws_s3_bucket',
                          name: 'x',
                          provider_config_key: 'module.a.module.b:aws',
                          provisioners: [{ type: 'remote-exec' }],
                        },
                      ],
                      variables: { v: { default: 3, description: 'd' } },
                      outputs: { o: { expression: { constant_value: 1 } } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    }) as Record<string, any>;
    assert.deepEqual(Object.keys(data.module_calls), ['a', 'module.a:b']);
    assert.equal(data.module_calls.a.version_constraint, '1.2.0');
    assert.deepEqual(data.module_calls.a.count, { constant_value: 1 });
    assert.equal(data.module_calls['module.a:b'].module_address, 'module.a');
    const bucket = data.resources['module.a.module.b.aws_s3_bucket.x'];
    assert.equal(bucket.module_address, 'module.a.module.b');
    assert.equal(bucket.address, 'module.a.module.b.aws_s3_bucket.x');
    assert.deepEqual(bucket.count, {});
    assert.deepEqual(data.provisioners['module.a.module.b.aws_s3_bucket.x:0'], {
      resource_address: 'module.a.module.b.aws_s3_bucket.x',
      type: 'remote-exec',
      index: '0',
      config: {},
    });
    assert.deepEqual(bucket.provisioners, [data.provisioners['module.a.module.b.aws_s3_bucket.x:0']]);
    assert.deepEqual(data.variables['module.a.module.b:v'], { name: 'v', module_address: 'module.a.module.b', default: 3, description: 'd' });
    assert.equal(data.outputs['module.a.module.b:o'].sensitive, false);
    assert.equal(data.providers.aws.version_constraint, '~> 5.0');
    assert.deepEqual(data.providers.aws.config, { region: { constant_value: 'eu-west-1' } });
    assert.equal(data.providers['module.a.module.b:aws'].alias, 'east');
    assert.equal(data.providers['module.a.module.b:aws'].provider_config_key, 'module.a.module.b:aws');
  });

  it('tfstate/v2 keys a deposed object by address:deposed_key and keeps tainted', () => {
    const data = tfstateFromJson({
      terraform_version: '1.11.0',
      values: {
        outputs: { o: { value: 'v', sensitive: false, type: 'string' } },
        root_module: {
          resources: [
            { address: 'x.y', mode: 'managed', type: 'x', name: 'y', provider_name: 'p', values: { a: 1 }, tainted: true },
            { address: 'x.y', mode: 'managed', type: 'x', name: 'y', provider_name: 'p', values: { a: 0 }, deposed_key: 'abcd1234' },
          ],
        },
      },
    }) as Record<string, any>;
    assert.equal(data.terraform_version, '1.11.0');
    assert.deepEqual(Object.keys(data.resources), ['x.y', 'x.y:abcd1234']);
    assert.equal(data.resources['x.y'].tainted, true);
    assert.equal(data.resources['x.y:abcd1234'].deposed_key, 'abcd1234');
    assert.deepEqual(data.outputs, { o: { name: 'o', sensitive: false, value: 'v' } });
    assert.deepEqual(tfstateFromJson({}), { terraform_version: '', resources: {}, outputs: {} });
  });

  it('keeps a name __proto__ from a document as a key, not as the prototype', () => {
    const doc = JSON.parse('{"variables": {"__proto__": {"value": 1}}, "values": {"outputs": {"__proto__": {"value": 2}}}}');
    const plan = tfplanFromJson(doc) as Record<string, any>;
    assert.deepEqual(Object.keys(plan.variables), ['__proto__']);
    assert.equal(Object.getPrototypeOf(plan.variables), Object.prototype);
    const state = tfstateFromJson(doc) as Record<string, any>;
    assert.deepEqual(Object.keys(state.outputs), ['__proto__']);
    assert.equal(Object.getPrototypeOf(state.outputs), Object.prototype);
    const config = tfconfigFromJson(JSON.parse('{"configuration": {"root_module": {"variables": {"__proto__": {}}}}}')) as Record<string, any>;
    assert.deepEqual(Object.keys(config.variables), ['__proto__']);
  });

  it('tfrun fills what the description leaves out and shows variables without values', () => {
    const data = tfrunFromRun({
      id: 'run-abc',
      created_at: '2026-01-02T03:04:05.000Z',
      message: 'hi',
      is_destroy: true,
      target_addrs: ['a.b'],
      variables: { token: { category: 'env', sensitive: true }, region: {} },
      organization: { name: 'acme' },
      workspace: { id: 'ws-1', name: 'prod', vcs_repo: { identifier: 'acme/infra', branch: 'main' } },
    }) as Record<string, any>;
    assert.equal(data.id, 'run-abc');
    assert.equal(data.is_destroy, true);
    assert.equal(data.speculative, false);
    assert.equal(data.refresh, true);
    assert.equal(data.refresh_only, false);
    assert.equal(data.commit_sha, null);
    assert.equal(data.replace_addrs, null);
    assert.deepEqual(data.target_addrs, ['a.b']);
    assert.deepEqual(data.variables, { token: { category: 'env', sensitive: true }, region: { category: 'terraform', sensitive: false } });
    assert.equal(data.workspace.execution_mode, 'remote');
    assert.deepEqual(data.workspace.tags, []);
    assert.deepEqual(data.workspace.vcs_repo, { identifier: 'acme/infra', display_identifier: 'acme/infra', branch: 'main', ingress_submodules: false });
    assert.equal(data.cost_estimate, null);
    assert.equal(tfrunFromRun({}).workspace && (tfrunFromRun({}).workspace as Record<string, unknown>).vcs_repo, null);
  });
});
