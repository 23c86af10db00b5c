// `hangar sentinel test|apply`, the test-case runner and the HCL reader behind them, on small
// policy sets written here (none from the corpus).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it, type TestContext } from 'node:test';
import { sentinelCommand } from '../src/sentinel/cli.ts';
import { parseHcl } from '../src/sentinel/hcl.ts';
import { runTestCases } from '../src/sentinel/testing.ts';
import { tfplanFromJson } from '../src/sentinel/tfplan.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function write(root: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}

/** Runs the command in-process and returns its exit status and output lines. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const status = sentinelCommand(args, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { status, out, err };
}

const POLICY_SET = {
  'sentinel.hcl': `
module "limits" {
  source = "./modules/limits.sentinel"
}
policy "small-buckets" {
  source = "./small-buckets.sentinel"
  enforcement_level = "hard-mandatory"
}
param "max_size" {
  value = 10
}
`,
  'modules/limits.sentinel': `
within = func(size, max) {
  return size <= max
}
`,
  'small-buckets.sentinel': `
import "tfplan/v2" as tfplan
import "limits"
param max_size default 100
param tag default "team"

buckets = filter tfplan.resource_changes as address, rc {
  rc.type is "bucket" and rc.change.actions contains "create"
}
sizes_ok = rule { all buckets as address, rc { limits.within(rc.change.after.size, max_size) } }
tagged = rule { all buckets as address, rc { tag in keys(rc.change.after.tags else {}) } }
main = rule { sizes_ok and tagged }
`,
  'test/small-buckets/mock-small.sentinel': `
resource_changes = {
  "bucket.a": {"type": "bucket", "change": {"actions": ["create"], "after": {"size": 5, "tags": {"team": "x"}}}},
  "disk.b": {"type": "disk", "change": {"actions": ["create"], "after": {"size": 500}}},
}
`,
  'test/small-buckets/pass.hcl': `
# Sentinel written as a mock module.
mock "tfplan/v2" {
  module {
    source = "mock-small.sentinel"
  }
}
test {
  rules = {
    main = true
    sizes_ok = true
  }
}
`,
  'test/small-buckets/fail-size.hcl': `
mock "tfplan/v2" {
  data = {
    resource_changes = {
      "bucket.big" = {
        type = "bucket"
        change = { actions = ["create"], after = { size = 11, tags = { team = "y" } } }
      }
    }
  }
}
test {
  rules = {
    main = false
    sizes_ok = false
  }
}
`,
  'test/small-buckets/param-override.hcl': `
param "max_size" {
  value = 20
}
mock "tfplan/v2" {
  data = {
    resource_changes = {
      "bucket.mid" = { type = "bucket", change = { actions = ["create"], after = { size = 15, tags = { team = "z" } } } }
    }
  }
}
test {
  rules = { main = true }
}
`,
  'test/small-buckets/global.hcl': `
# A global defined before the policy runs, and a param the bucket lacks as a tag.
global "extra_tag" {
  value = "team"
}
param "tag" {
  value = "cost-center"
}
mock "tfplan/v2" {
  data = {
    resource_changes = {
      "bucket.c" = { type = "bucket", change = { actions = ["create"], after = { size = 1, tags = { team = "q" } } } }
    }
  }
}
test {
  rules = {
    main   = false
    tagged = false
  }
}
`,
  'test/small-buckets/wrong-expectation.hcl': `
mock "tfplan/v2" {
  module {
    source = "mock-small.sentinel"
  }
}
test {
  rules = {
    main = false
  }
}
`,
};

describe('sentinel test runner and CLI', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'hangar-sentinel-'));
    write(dir, POLICY_SET);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** A folder of the suite's directory holding `files`, removed when the test `t` ends. */
  function folder(t: TestContext, name: string, files: Record<string, string>): string {
    const sub = path.join(dir, name);
    write(sub, files);
    t.after(() => rmSync(sub, { recursive: true, force: true }));
    return sub;
  }

  it('runs every case with its mocks (module and data forms), the set’s modules and params, and compares the rules', () => {
    const results = runTestCases(dir);
    const byName = Object.fromEntries(results.map((r) => [path.basename(r.file), r]));
    assert.deepEqual(Object.keys(byName).sort(), ['fail-size.hcl', 'global.hcl', 'param-override.hcl', 'pass.hcl', 'wrong-expectation.hcl']);
    assert.equal(byName['global.hcl']!.passed, true, byName['global.hcl']!.reason);
    assert.equal(byName['pass.hcl']!.passed, true, byName['pass.hcl']!.reason);
    assert.equal(byName['fail-size.hcl']!.passed, true, byName['fail-size.hcl']!.reason);
    assert.equal(byName['param-override.hcl']!.passed, true, byName['param-override.hcl']!.reason);
    assert.equal(byName['wrong-expectation.hcl']!.passed, false);
    assert.equal(byName['wrong-expectation.hcl']!.reason, 'expected main to be false, got true');
  });

  it('prints one line per case and a summary, and exits 1 when a case fails', () => {
    const { status, out } = cli(['test', dir]);
    assert.equal(status, 1);
    assert.equal(out.length, 6);
    assert.match(out[0]!, /^PASS .*fail-size\.hcl$/);
    assert.match(out[4]!, /^FAIL .*wrong-expectation\.hcl: expected main to be false, got true$/);
    assert.equal(out[5], 'sentinel: 4 passed, 1 failed');
  });

  it('exits 0 when every case passes', () => {
    rmSync(path.join(dir, 'test/small-buckets/wrong-expectation.hcl'));
    const { status, out } = cli(['test', dir]);
    assert.equal(status, 0);
    assert.equal(out.at(-1), 'sentinel: 4 passed, 0 failed');
    write(dir, { 'test/small-buckets/wrong-expectation.hcl': POLICY_SET['test/small-buckets/wrong-expectation.hcl'] });
  });

  it('reports a policy error in a case with its position, and skips http cases only when asked', (t) => {
    const sub = folder(t, 'more', {
      'broken.sentinel': 'main = rule { 1 +  }\n',
      'test/broken/a.hcl': 'test {\n  rules = { main = true }\n}\n',
      'online.sentinel': 'import "http"\nr = http.get("https://example.com")\nmain = rule { true }\n',
      'test/online/a.hcl': 'test {\n  rules = { main = true }\n}\n',
    });
    const { status, out } = cli(['test', sub]);
    assert.equal(status, 1);
    assert.match(out[0]!, /^FAIL .*broken\/a\.hcl: .*broken\.sentinel:1:20: unexpected '}', expected an expression$/);
    assert.match(out[1]!, /^FAIL .*online\/a\.hcl: .*online\.sentinel:2:13: the http import is not available/);
    const skipping = cli(['test', sub, '--skip-network']);
    assert.deepEqual(skipping.out.slice(1), [
      `SKIP ${path.join(sub, 'test/online/a.hcl')}: needs network access (the http import)`,
      'sentinel: 0 passed, 1 failed, 1 skipped',
    ]);
  });

  it('applies one policy with --param and a terraform show -json plan', () => {
    const plan = {
      terraform_version: '1.9.0',
      resource_changes: [
        {
          address: 'bucket.a',
          mode: 'managed',
          type: 'bucket',
          name: 'a',
          provider_name: 'registry.terraform.io/x/y',
          change: { actions: ['create'], before: null, after: { size: 8, tags: { team: 't' } } },
        },
      ],
    };
    const planFile = path.join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify(plan));
    const policy = path.join(dir, 'small-buckets.sentinel');
    const ok = cli(['apply', policy, '--plan', planFile]);
    assert.equal(ok.status, 0, ok.out.join('\n'));
    assert.deepEqual(ok.out, ['rule sizes_ok = true', 'rule tagged = true', 'rule main = true', `PASS ${path.relative(process.cwd(), policy)}`]);
    const tooBig = cli(['apply', policy, '--plan', planFile, '--param', 'max_size=5']);
    assert.equal(tooBig.status, 1);
    assert.equal(tooBig.out.at(-1), `FAIL ${path.relative(process.cwd(), policy)}`);
    const untagged = cli(['apply', policy, '--plan', planFile, '--param', 'tag=owner']);
    assert.equal(untagged.status, 1);
  });

  it('reads import "module" and import "static" blocks, as current policy libraries declare their helpers', (t) => {
    const sub = folder(t, 'current-style', {
      'sentinel.hcl': `
import "module" "report" {
  source = "./modules/report.sentinel"
}
import "static" "allowed" {
  source = "./data/allowed.json"
  format = "json"
}
import "plugin" "never-run" {
  source = "./plugins/never-run"
}
policy "regions" {
  source = "./regions.sentinel"
}
global "greeting" {
  value = "hello"
}
`,
      'modules/report.sentinel': 'summary = func(violations) { return string(length(violations)) + " violation(s)" }\n',
      'data/allowed.json': '{"regions": ["eu-west-1", "eu-central-1"]}',
      'regions.sentinel': `
import "collection"
import "collection/maps" as maps
import "report"
import "allowed"
param buckets default []
violations = collection.reject(buckets, func(b) { return maps.get(b, "values.region", "") in allowed.regions })
print(report.summary(violations), greeting else "no global")
main = rule { violations is empty }
`,
      'test/regions/pass.hcl': 'param "buckets" {\n  value = [{ values = { region = "eu-west-1" } }]\n}\n',
      'test/regions/fail.hcl':
        'param "buckets" {\n  value = [{ values = { region = "us-east-1" } }, { values = {} }]\n}\ntest {\n  rules = { main = false }\n}\n',
    });
    const cases = runTestCases(sub);
    assert.deepEqual(
      cases.map((c) => [path.basename(c.file), c.passed, c.reason]),
      [
        ['fail.hcl', true, undefined],
        ['pass.hcl', true, undefined],
      ],
    );
    assert.deepEqual(cases[0]!.prints, ['2 violation(s) hello']);
    const applied = cli(['apply', path.join(sub, 'regions.sentinel'), '--param', 'buckets=[{"values": {"region": "eu-central-1"}}]']);
    assert.equal(applied.status, 0, applied.out.join('\n'));
    assert.equal(applied.out[0], '0 violation(s) hello');
    // A plugin is a program, which Hangar never runs: importing one is an unknown import.
    write(sub, { 'regions.sentinel': 'import "never-run"\nmain = rule { true }\n' });
    const plugin = cli(['apply', path.join(sub, 'regions.sentinel')]);
    assert.equal(plugin.status, 2);
    assert.match(plugin.out.join('\n'), /^ERROR .*unknown import "never-run"/);
    write(sub, { 'sentinel.hcl': 'import "static" "x" {\n  source = "./data/allowed.json"\n  format = "yaml"\n}\n' });
    const yaml = cli(['apply', path.join(sub, 'regions.sentinel')]);
    assert.equal(yaml.status, 2);
    assert.match(yaml.err.join('\n'), /import "static" "x": format "yaml" is not supported \(only "json"\)/);
  });

  it('names the block that lacks a source, and static data that is not a JSON object', (t) => {
    const sub = folder(t, 'no-source', {
      'p.sentinel': 'main = rule { true }\n',
      'test/p/module.hcl': 'module "m" {\n}\n',
      'test/p/import.hcl': 'import "module" "y" {\n}\n',
      'test/p/mock.hcl': 'mock "x" {\n  module {\n  }\n}\n',
      'test/p/static-list.hcl': 'import "static" "s" {\n  source = "../../list.json"\n}\n',
      'list.json': '[1, 2]',
      'q.sentinel': 'import "s"\nmain = rule { true }\n',
      'test/q/static-list.hcl': 'import "static" "s" {\n  source = "../../list.json"\n}\n',
    });
    assert.deepEqual(
      runTestCases(sub).map((c) => [path.basename(c.file), c.reason?.replace(/^.*:\d+:\d+: /, '')]),
      [
        ['import.hcl', 'import "module" "y" needs a source'],
        ['mock.hcl', 'mock "x" module needs a source'],
        ['module.hcl', 'module "m" needs a source'],
        ['static-list.hcl', undefined],
        ['static-list.hcl', `import "static" "s": ${path.join(sub, 'list.json')} must hold a JSON object`],
      ],
    );
  });

  it('runs test cases in the older JSON format: mocks as module paths or data, params, globals, expected rules', (t) => {
    const sub = folder(t, 'json-style', {
      'limit.sentinel': 'import "plan"\nparam max default 1\nsmall = rule { plan.count <= max }\nmain = rule { small and greeting is "hi" }\n',
      'test/limit/mock-plan.sentinel': 'count = 3\n',
      'test/limit/module-pass.json': JSON.stringify({
        mock: { plan: 'mock-plan.sentinel' },
        param: { max: 5 },
        global: { greeting: 'hi' },
        test: { main: true },
      }),
      'test/limit/data-fail.json': JSON.stringify({ mock: { plan: { count: 9 } }, global: { greeting: 'hi' }, test: { main: false, small: false } }),
      'test/limit/wrong.json': JSON.stringify({ mock: { plan: { count: 0 } }, global: { greeting: 'hi' }, test: { main: false } }),
      'test/limit/broken.json': '{"mock": ',
      // A folder naming no policy: HashiCorp's CLI never runs it; it is skipped, not failed.
      'test/ghost/case.hcl': 'test {\n  rules = { main = true }\n}\n',
    });
    const cases = runTestCases(sub);
    assert.deepEqual(
      cases.map((c) => [path.basename(c.file), c.passed]),
      [
        ['case.hcl', false],
        ['broken.json', false],
        ['data-fail.json', true],
        ['module-pass.json', true],
        ['wrong.json', false],
      ],
    );
    assert.match(cases[1]!.reason!, /not valid JSON/);
    assert.match(cases[4]!.reason!, /expected main to be false, got true/);
    assert.deepEqual([cases[0]!.orphan, cases[1]!.orphan], [true, false]);
    const out = cli(['test', sub]);
    assert.equal(out.status, 1);
    assert.match(out.out.join('\n'), /^SKIP .*ghost[/\\]case\.hcl: no policy .*ghost\.sentinel for this test case$/m);
    assert.equal(out.out.at(-1), 'sentinel: 2 passed, 2 failed, 1 skipped');
  });

  it('reads HANGAR_POLICY_TIMEOUT and ends an endless policy with a clear error', () => {
    const slow = path.join(dir, 'slow', 'slow.sentinel');
    write(dir, { 'slow/slow.sentinel': 'n = 0\nfor range(100000) as i { for range(100000) as j { n += 1 } }\nmain = rule { true }\n' });
    const r = cli(['apply', slow], { HANGAR_POLICY_TIMEOUT: '0.2' });
    assert.equal(r.status, 2);
    assert.match(r.out.at(-1)!, /^ERROR .*slow\.sentinel: .*slow\.sentinel:2:\d+: evaluation stopped after 200 ms \(the time limit\)$/);
    const bad = cli(['apply', slow], { HANGAR_POLICY_TIMEOUT: 'soon' });
    assert.equal(bad.status, 2);
    assert.match(bad.err[0]!, /HANGAR_POLICY_TIMEOUT must be a number of seconds/);
  });

  it('ends a regular expression that would backtrack without end', () => {
    write(dir, { 'slow/regex.sentinel': 'main = rule { not ("' + 'a'.repeat(40) + '!" matches "^(a+)+$") }\n' });
    const started = performance.now();
    const r = cli(['apply', path.join(dir, 'slow/regex.sentinel')]);
    assert.equal(r.status, 0, r.out.join('\n'));
    assert.ok(performance.now() - started < 5000);
  });

  it('answers usage errors with status 2', () => {
    assert.equal(cli(['frobnicate']).status, 2);
    assert.equal(cli(['apply']).status, 2);
    assert.equal(cli(['apply', 'x.sentinel', '--bogus']).status, 2);
    assert.equal(cli(['test', path.join(dir, 'nowhere')]).status, 2);
  });

  it('is what `hangar sentinel` runs, with its exit status', async () => {
    const run = promisify(execFile);
    const bin = path.join(ROOT, 'bin/hangar.mjs');
    await assert.rejects(run(process.execPath, [bin, 'sentinel', 'test', dir]), (e: { code: number; stdout: string }) => {
      assert.equal(e.code, 1);
      assert.match(e.stdout, /\nsentinel: 4 passed, 1 failed\n$/);
      return true;
    });
  });
});

describe('sentinel HCL reader', () => {
  it('reads attributes, labelled blocks, objects, lists, heredocs and comments', () => {
    const body = parseHcl(
      `# comment
mock "tfplan/v2" {
  data = {
    a = 1, "b": [true, null, "x\\ty"], // trailing
    /* block */ c = { d = -2.5 }
  }
}
text = <<-EOT
    hello
      world
    EOT
`,
      'c.hcl',
    );
    assert.deepEqual(body.blocks[0]!.labels, ['tfplan/v2']);
    assert.deepEqual(body.blocks[0]!.body.attributes.get('data')!.value, { a: 1, b: [true, null, 'x\ty'], c: { d: -2.5 } });
    assert.equal(body.attributes.get('text')!.value, 'hello\n  world\n');
  });

  it('keeps a key named __proto__ as data', () => {
    const body = parseHcl('data = { __proto__ = { polluted = true }, ok = 1 }', 'c.hcl');
    const data = body.attributes.get('data')!.value as Record<string, unknown>;
    assert.deepEqual(Object.keys(data), ['__proto__', 'ok']);
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.equal((data as { polluted?: boolean }).polluted, undefined);
  });

  it('reports what it cannot read with file:line:column', () => {
    assert.throws(() => parseHcl('test {\n  rules = { main = tru }\n}', 'c.hcl'), /^SentinelError: c\.hcl:2:20: unsupported expression tru/);
    assert.throws(() => parseHcl('a = "${var.x}"', 'c.hcl'), /c\.hcl:1:6: template interpolation is not supported/);
    assert.throws(() => parseHcl('block {\n', 'c.hcl'), /expected '}', found end of file/);
  });
});

describe('tfplan/v2 from terraform show -json', () => {
  it('keys resource changes by address (deposed objects by address:key) and flattens planned resources', () => {
    const data = tfplanFromJson({
      terraform_version: '1.8.0',
      variables: { region: { value: 'eu' } },
      planned_values: {
        outputs: { o: { sensitive: false, value: 1 } },
        root_module: {
          resources: [{ address: 'a.x', mode: 'managed', type: 'a', name: 'x', provider_name: 'p', values: { v: 1 } }],
          child_modules: [
            { address: 'module.m', resources: [{ address: 'module.m.b.y', mode: 'managed', type: 'b', name: 'y', provider_name: 'p', values: {} }] },
          ],
        },
      },
      resource_changes: [
        {
          address: 'module.m.b.y',
          module_address: 'module.m',
          mode: 'managed',
          type: 'b',
          name: 'y',
          provider_name: 'p',
          change: { actions: ['update'], before: { v: 0 }, after: { v: 1 } },
        },
        { address: 'a.x', mode: 'managed', type: 'a', name: 'x', provider_name: 'p', deposed: 'abc', change: { actions: ['delete'], before: {}, after: null } },
      ],
      output_changes: { o: { actions: ['create'], before: null, after: 1 } },
    }) as Record<string, any>;
    assert.equal(data.terraform_version, '1.8.0');
    assert.deepEqual(data.variables, { region: { name: 'region', value: 'eu' } });
    assert.deepEqual(Object.keys(data.resource_changes), ['module.m.b.y', 'a.x:abc']);
    assert.equal(data.resource_changes['module.m.b.y'].module_address, 'module.m');
    assert.deepEqual(data.resource_changes['a.x:abc'].change.actions, ['delete']);
    assert.deepEqual(Object.keys(data.planned_values.resources), ['a.x', 'module.m.b.y']);
    assert.equal(data.planned_values.resources['module.m.b.y'].module_address, 'module.m');
    assert.deepEqual(data.output_changes.o.change.after, 1);
  });
});
