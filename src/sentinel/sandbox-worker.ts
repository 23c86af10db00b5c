// The child side of sandbox.ts: receives one request, builds the Terraform imports once, then
// evaluates each policy, saying when one starts (so the caller can time it) and what it gave.
import { evaluatePolicy, type ImportSpec } from './index.ts';
import type { Program } from './ast.ts';
import type { SandboxRequest, SandboxResult, WorkerMessage } from './sandbox.ts';
import { tfconfigFromJson } from './tfconfig.ts';
import { tfplanFromJson } from './tfplan.ts';
import { tfrunFromRun } from './tfrun.ts';
import { tfstateFromJson } from './tfstate.ts';

const post = (m: WorkerMessage) => process.send!(m);

// One request per process; the parent ends it after the last result (or when it overruns).
process.once('message', (request: SandboxRequest) => run(request));

function run(request: SandboxRequest): void {
  const shared: Record<string, ImportSpec> = {};
  const tf = request.terraform;
  if (tf) {
    const text = typeof tf.planJson === 'string' ? tf.planJson : tf.planJson ? new TextDecoder().decode(tf.planJson) : '';
    const plan: unknown = text ? JSON.parse(text) : {};
    const prior = (plan as { prior_state?: unknown } | null)?.prior_state;
    shared['tfplan/v2'] = { data: tfplanFromJson(plan) };
    shared['tfconfig/v2'] = { data: tfconfigFromJson(plan) };
    shared['tfstate/v2'] = { data: tfstateFromJson(prior ?? {}) };
    if (tf.run) shared.tfrun = { data: tfrunFromRun(tf.run) };
  }
  post({ type: 'ready' });

  // Policies of one set share their modules: each file is parsed once per batch.
  const parseCache = new Map<string, Program>();
  request.policies.forEach((policy, index) => {
    post({ type: 'start', index });
    const r = evaluatePolicy({
      source: policy.source,
      filename: policy.filename,
      params: policy.params,
      imports: { ...policy.imports, ...shared },
      limits: { timeoutMs: request.limits.timeoutMs, ...(request.limits.maxSteps ? { maxSteps: request.limits.maxSteps } : {}) },
      parseCache,
    });
    // Only what the caller shows crosses back: a rule's value is true, false, or not a bool.
    const rules = Object.fromEntries(Object.entries(r.rules).map(([k, v]) => [k, typeof v === 'boolean' ? v : null]));
    const result: SandboxResult = { result: r.result, prints: r.prints, rules, rulePositions: r.rulePositions, ...(r.error ? { error: r.error } : {}) };
    post({ type: 'done', index, result });
  });
}
