// The sandbox policy checks evaluate in: a worker thread per batch, with the interpreter's time and
// step bounds, a heap bound, and termination when a policy is stuck inside one native call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateInSandbox, type SandboxPolicy } from '../src/sentinel/sandbox.ts';

const policy = (source: string, extra: Partial<SandboxPolicy> = {}): SandboxPolicy => ({ source, filename: 'p.sentinel', params: {}, imports: {}, ...extra });
const limits = { timeoutMs: 1_000, memoryMb: 64 };

describe('sentinel sandbox', () => {
  it('evaluates policies in order with their params, modules and the Terraform imports built from the plan', async () => {
    const plan = { resource_changes: [{ address: 'terraform_data.a', type: 'terraform_data', mode: 'managed', name: 'a', change: { actions: ['create'] } }] };
    const results = await evaluateInSandbox({
      policies: [
        policy(
          'import "tfplan/v2" as tfplan\nparam max\nprint("changes:", length(tfplan.resource_changes))\nmain = rule { length(tfplan.resource_changes) <= max }',
          {
            params: { max: 0 },
          },
        ),
        policy('import "tfrun"\nimport "helpers"\nok = rule { tfrun.workspace.name is "app" }\nmain = rule { ok and helpers.one() is 1 }', {
          imports: { helpers: { source: 'one = func() { return 1 }', filename: 'helpers.sentinel' } },
        }),
      ],
      terraform: { planJson: Buffer.from(JSON.stringify(plan)), run: { id: 'run-1', workspace: { name: 'app' } } },
      limits,
    });
    assert.equal(results.length, 2);
    assert.equal(results[0]!.result, false);
    assert.deepEqual(results[0]!.prints, ['changes: 1']);
    assert.equal(results[1]!.result, true, JSON.stringify(results[1]));
    assert.deepEqual(results[1]!.rules, { main: true, ok: true });
    assert.deepEqual(results[1]!.rulePositions.ok, { line: 3, column: 1 });
  });

  it('an endless loop is stopped at the time limit; the next policy still runs', async () => {
    const t0 = performance.now();
    const results = await evaluateInSandbox({
      policies: [policy('for range(1000000000) as i { x = i }\nmain = rule { true }'), policy('main = rule { true }')],
      limits,
    });
    assert.equal(results[0]!.error?.kind, 'limit');
    assert.match(results[0]!.error!.message, /evaluation stopped .*(time|step) limit/);
    assert.equal(results[1]!.result, true);
    assert.ok(performance.now() - t0 < 20_000);
  });

  it('a policy stuck inside one native call (a backtracking regular expression) is terminated at the time limit', async () => {
    // A \p{…} class needs the u flag, which V8's linear-time fallback does not support: this match
    // backtracks for ages inside one call, out of the interpreter's sight.
    const stuck = 'main = rule { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" matches "^(\\\\p{L}+)+$" }';
    const t0 = performance.now();
    const results = await evaluateInSandbox({ policies: [policy(stuck), policy('main = rule { 1 is 1 }')], limits });
    assert.equal(results[0]!.error?.kind, 'limit');
    assert.match(results[0]!.error!.message, /evaluation stopped after 1000 ms \(the time limit\)/);
    assert.equal(results[1]!.result, true, 'a fresh worker evaluates the policies after it');
    assert.ok(performance.now() - t0 < 20_000);
  });

  it('a huge list ends at the memory limit with a clear message; the caller is unharmed', async () => {
    const results = await evaluateInSandbox({
      policies: [policy('l = range(9000000)\nm = map l as x { x + 1 }\nmain = rule { length(m) > 0 }'), policy('main = rule { true }')],
      limits: { timeoutMs: 20_000, memoryMb: 32 },
    });
    assert.equal(results[0]!.error?.kind, 'limit', JSON.stringify(results[0]));
    assert.match(results[0]!.error!.message, /evaluation stopped: the policy needed more than 32 MiB of memory \(the memory limit\)/);
    assert.equal(results[1]!.result, true);
  });

  it('the http import is refused: policies get no network', async () => {
    const [r] = await evaluateInSandbox({ policies: [policy('import "http"\nr = http.get("http://127.0.0.1:1/")\nmain = rule { true }')], limits });
    assert.equal(r!.error?.kind, 'network');
    assert.match(r!.error!.message, /no network access/);
  });

  it('a plan that is not JSON makes every policy errored, not the caller', async () => {
    const results = await evaluateInSandbox({
      policies: [policy('main = rule { true }'), policy('main = rule { true }')],
      terraform: { planJson: '{not json' },
      limits,
    });
    assert.equal(results.length, 2);
    for (const r of results) assert.match(r.error!.message, /internal error/);
  });
});
