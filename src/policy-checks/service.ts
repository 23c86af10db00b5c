// Policy checks: after a plan, every Sentinel policy set that applies to the run's workspace is
// evaluated against the plan, with the set's parameters. The run waits in `policy_checking`;
// the outcome moves it on (runs/service.ts `policyChecked`). Sensitive parameter values exist
// only inside `evaluateSets`: every text a check keeps (its log, its errors) is scrubbed of them.
import type { Caller } from '../auth/caller.ts';
import { authorize, can } from '../auth/authorize.ts';
import { actingUserId } from '../auth/principal.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import type { JobsService } from '../jobs/service.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { PoliciesService } from '../policies/service.ts';
import type { PolicySetParametersService } from '../policy-set-parameters/service.ts';
import type { PolicySetsService } from '../policy-sets/service.ts';
import type { PolicySetVersionsService } from '../policy-set-versions/service.ts';
import type { Run, RunsService } from '../runs/service.ts';
import { describeError, evaluatePolicy, type ImportSpec } from '../sentinel/index.ts';
import { tfconfigFromJson } from '../sentinel/tfconfig.ts';
import { tfplanFromJson } from '../sentinel/tfplan.ts';
import { tfrunFromRun } from '../sentinel/tfrun.ts';
import { tfstateFromJson } from '../sentinel/tfstate.ts';
import { now } from '../time.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { CheckResult, PolicyCheck, PolicyOutcome } from './store.ts';

export type { PolicyCheck, CheckResult };

export interface PolicyCheckView {
  check: PolicyCheck;
  canOverride: boolean;
}

type Level = PolicyOutcome['enforcementLevel'];
interface Evaluable {
  name: string;
  level: Level;
  source: string;
  modules: Record<string, ImportSpec>;
  defaults: Record<string, unknown>;
}

const LEVELS: readonly Level[] = ['advisory', 'soft-mandatory', 'hard-mandatory'];
const level = (l: string): Level => (LEVELS.includes(l as Level) ? (l as Level) : 'hard-mandatory');

/** A parameter's stored text as the policy sees it: JSON when it reads as JSON, else the string. */
function paramValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Replaces every secret in `text` (longest first, so a secret inside another goes too). */
const scrub = (text: string, secrets: readonly string[]) => secrets.reduce((t, s) => t.split(s).join('***'), text);

export function createPolicyChecksService(deps: {
  database: Database;
  runs: RunsService;
  workspaces: WorkspacesService;
  jobs: JobsService;
  policies: PoliciesService;
  policySets: PolicySetsService;
  policySetVersions: PolicySetVersionsService;
  policySetParameters: PolicySetParametersService;
  /** The wall-clock bound of one policy's evaluation (HANGAR_POLICY_TIMEOUT). */
  timeoutMs: number;
}) {
  const { database } = deps;
  const db = database.db;

  async function workspaceOf(q: Queryable, run: Run) {
    const [w] = await deps.workspaces.rows([run.workspaceId], q);
    return w!;
  }

  /** The policies of a set: those it holds, or its current version's. */
  async function policiesOf(setId: string): Promise<Evaluable[]> {
    const { policyIds, currentVersionId } = await deps.policySets.contents(db, setId);
    if (policyIds.length > 0) {
      const held = await deps.policies.withSources(policyIds);
      return held
        .filter((h) => h.policy.kind === 'sentinel')
        .map((h) => ({
          name: h.policy.name,
          level: level(h.policy.enforcementLevel),
          source: Buffer.from(h.source ?? new Uint8Array()).toString('utf8'),
          modules: {},
          defaults: {},
        }));
    }
    const manifest = currentVersionId ? await deps.policySetVersions.manifest(db, currentVersionId) : null;
    if (!manifest) return [];
    const modules: Record<string, ImportSpec> = {};
    for (const m of manifest.modules) modules[m.name] = { source: m.source, filename: m.path };
    const defaults: Record<string, unknown> = {};
    for (const p of manifest.params) defaults[p.name] = p.value;
    return manifest.policies.map((p) => ({ name: p.name, level: level(p.enforcementLevel), source: p.source ?? '', modules, defaults }));
  }

  /** Evaluates every applicable set; returns the outcome and the log (scrubbed). */
  async function evaluateSets(run: Run): Promise<{ result: CheckResult; output: string }> {
    const started = performance.now();
    const workspace = await workspaceOf(db, run);
    const sets = await deps.policySets.applyingTo(db, workspace);
    const plan = (await deps.jobs.ofRuns(db, [run.id])).find((j) => j.phase === 'plan');
    const planBytes = plan ? await deps.jobs.getBlob(db, plan.id, 'plan-json') : undefined;
    const planJson: unknown = planBytes ? JSON.parse(planBytes.toString('utf8')) : {};
    const prior = (planJson as { prior_state?: unknown } | null)?.prior_state;
    const imports: Record<string, ImportSpec> = {
      'tfplan/v2': { data: tfplanFromJson(planJson) },
      'tfconfig/v2': { data: tfconfigFromJson(planJson) },
      'tfstate/v2': { data: tfstateFromJson(prior ?? {}) },
      tfrun: {
        data: tfrunFromRun({
          id: run.id,
          created_at: run.createdAt,
          message: run.message,
          speculative: run.speculative,
          is_destroy: run.isDestroy,
          refresh: run.refresh,
          refresh_only: run.refreshOnly,
          target_addrs: run.targetAddrs,
          replace_addrs: run.replaceAddrs,
          workspace: { id: workspace.id, name: workspace.name, auto_apply: run.autoApply },
        }),
      },
    };
    const outcomes: PolicyOutcome[] = [];
    const sections: string[] = [];
    for (const set of sets) {
      const parameters = await deps.policySetParameters.runtimeParameters(set.id);
      // As stored, and as the policy sees it (a JSON string's text): both are kept out of the log.
      const secrets = parameters
        .filter((p) => p.sensitive)
        .flatMap((p) => {
          const v = paramValue(p.value);
          return typeof v === 'string' ? [p.value, v] : [p.value];
        })
        .filter((v) => v.length > 0)
        .sort((a, b) => b.length - a.length);
      for (const policy of await policiesOf(set.id)) {
        // Evaluation is synchronous: between policies the server answers what waited meanwhile.
        await new Promise((resolve) => setImmediate(resolve));
        const params: Record<string, unknown> = { ...policy.defaults };
        for (const p of parameters) params[p.key] = paramValue(p.value);
        const filename = `${policy.name}.sentinel`;
        const r = evaluatePolicy({
          source: policy.source,
          filename,
          params,
          imports: { ...policy.modules, ...imports },
          limits: { timeoutMs: deps.timeoutMs },
        });
        const error = r.error ? scrub(describeError(r.error), secrets) : null;
        const passed = r.result === true && !error;
        outcomes.push({ policySetId: set.id, policySetName: set.name, policy: policy.name, enforcementLevel: policy.level, result: passed, error });
        const lines = [`## Policy ${outcomes.length}: ${set.name}/${policy.name} (${policy.level})`, '', `Result: ${passed}`, ''];
        if (error) lines.push(`Error: ${error}`, '');
        for (const p of r.prints) lines.push(scrub(p, secrets));
        if (r.prints.length > 0) lines.push('');
        lines.push(`${String(passed).toUpperCase()} - ${filename}:1:1 - Rule "main"`, '');
        sections.push(lines.join('\n'));
      }
    }
    const failed = (l: Level) => outcomes.filter((o) => !o.result && o.enforcementLevel === l).length;
    const passed = outcomes.filter((o) => o.result).length;
    const result: CheckResult = {
      result: outcomes.every((o) => o.result),
      passed,
      totalFailed: outcomes.length - passed,
      hardFailed: failed('hard-mandatory'),
      softFailed: failed('soft-mandatory'),
      advisoryFailed: failed('advisory'),
      durationMs: Math.round(performance.now() - started),
      policies: outcomes,
    };
    const header = `Sentinel Result: ${result.result}\n\n${outcomes.length} policies evaluated.\n\n`;
    return { result, output: header + sections.join('\n') };
  }

  const statusOf = (r: CheckResult) => (r.hardFailed > 0 ? 'hard_failed' : r.softFailed > 0 ? 'soft_failed' : 'passed');

  async function find(caller: Caller, id: string) {
    const check = hasPrefix(id, 'polchk') ? await store.findCheck(db, id) : undefined;
    if (!check) throw errors.notFound();
    const view = await deps.runs.show(caller, check.runId);
    const found = await deps.workspaces.find(caller, { id: view.run.workspaceId });
    return { check, found };
  }

  const viewOf = (check: PolicyCheck, found: Parameters<typeof can>[0]): PolicyCheckView => ({ check, canOverride: can(found, 'override-policy-check') });

  deps.runs.usePolicyGate({
    async begin(q, run) {
      if ((await deps.policySets.applyingTo(q, await workspaceOf(q, run))).length === 0) return false;
      const at = now();
      await store.insertCheck(q, {
        id: newId('polchk'),
        runId: run.id,
        status: 'queued',
        scope: 'organization',
        result: null,
        output: null,
        statusTimestamps: { 'queued-at': at },
        overriddenByUserId: null,
        createdAt: at,
      });
      return true;
    },

    async evaluate(runId) {
      const [check] = await store.checksOfRun(db, runId);
      const run = await deps.runs.pipeline.runOf(runId);
      if (!check || !run || check.status !== 'queued') return;
      // The run moved on (canceled, discarded) before its checks ran: they never will.
      if (run.status !== 'policy_checking') return void (await store.settleCheck(db, check, ['queued'], 'canceled', now()));
      let outcome: 'passed' | 'override' | 'errored';
      let reason: string | null = null;
      try {
        const { result, output } = await evaluateSets(run);
        const errored = result.policies.some((p) => p.error !== null && p.enforcementLevel !== 'advisory');
        const status = errored ? 'errored' : statusOf(result);
        await store.settleCheck(db, check, ['queued'], status, now(), { result, output });
        outcome = status === 'passed' ? 'passed' : status === 'soft_failed' ? 'override' : 'errored';
        if (status === 'hard_failed') reason = 'A hard-mandatory policy failed';
        if (status === 'errored') reason = `A policy could not be evaluated: ${result.policies.find((p) => p.error)!.error}`;
      } catch (e) {
        // Never a stuck run: whatever went wrong ends the check, and the run, errored.
        await store.settleCheck(db, check, ['queued'], 'errored', now(), { output: 'The policy check could not run.\n' });
        outcome = 'errored';
        reason = `The policy check could not run: ${(e as Error).message}`;
      }
      await deps.runs.pipeline.policyChecked(runId, outcome, reason);
    },

    checkIds: (q, runIds) => store.idsOfRuns(q, runIds),

    async resume(cutoff) {
      const runIds = await store.staleQueued(db, cutoff, 20);
      for (const runId of runIds) await this.evaluate(runId);
      return runIds.length;
    },
  });

  return {
    async list(caller: Caller, runId: string, page: Page) {
      const view = await deps.runs.show(caller, runId);
      const found = await deps.workspaces.find(caller, { id: view.run.workspaceId });
      const { items, total } = await store.listChecks(db, view.run.id, page);
      return { items: items.map((c) => viewOf(c, found)), total, run: view };
    },

    async show(caller: Caller, id: string): Promise<PolicyCheckView> {
      const { check, found } = await find(caller, id);
      return viewOf(check, found);
    },

    async output(caller: Caller, id: string): Promise<string> {
      const { check } = await find(caller, id);
      return check.output ?? '';
    },

    /** A soft-mandatory failure overridden: the check is `overridden`, the run goes on. */
    async override(caller: Caller, id: string): Promise<PolicyCheckView> {
      const { check, found } = await find(caller, id);
      authorize(found, 'override-policy-check');
      if (check.status !== 'soft_failed') throw errors.conflict(`The policy check is ${check.status}; only a soft-mandatory failure can be overridden`);
      const actor = actingUserId(caller.principal);
      const moved = await database.transaction(async (trx) => {
        const done = await store.settleCheck(trx, check, ['soft_failed'], 'overridden', now(), { overriddenByUserId: actor });
        if (!done || !(await deps.runs.pipeline.policyOverridden(trx, check.runId, actor)))
          throw errors.conflict('The policy check can no longer be overridden');
        return done;
      });
      return viewOf(moved, found);
    },

    /** The runs of checks listed, for `include=run`. */
    runViews: (caller: Caller, runId: string) => deps.runs.show(caller, runId),
  };
}

export type PolicyChecksService = ReturnType<typeof createPolicyChecksService>;
