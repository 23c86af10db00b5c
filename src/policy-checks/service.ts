// Policy checks: after a plan, every Sentinel policy set that applies to the run's workspace is
// evaluated against the plan, with the set's parameters. The run waits in `policy_checking`;
// the outcome moves it on (runs/service.ts `policyChecked`). Sensitive parameter values exist
// only inside `evaluateSets`: every text a check keeps (its log, its errors) is scrubbed of them.
import type { BlobKey, BlobStore } from '../blobs/store.ts';
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
import { describeError, type ImportSpec } from '../sentinel/index.ts';
import { evaluateInSandbox, type SandboxPolicy, type SandboxResult } from '../sentinel/sandbox.ts';
import type { RunDescription } from '../sentinel/tfrun.ts';
import { now } from '../time.ts';
import { effectiveExecution, type Workspace, type WorkspacesService } from '../workspaces/service.ts';
import type { Organization } from '../organizations/service.ts';
import * as store from './store.ts';
import type { CheckResult, PolicyCheck, PolicyCheckStatus, PolicyOutcome } from './store.ts';

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

/**
 * The run as the `tfrun` import shows it: to the run's policy checks, and in the Sentinel mocks
 * of its plan (plan exports), so a policy tested with those mocks sees what its check saw.
 */
export function runDescription(run: Run, workspace: Workspace, org: Organization | undefined): RunDescription {
  return {
    id: run.id,
    created_at: run.createdAt,
    message: run.message,
    speculative: run.speculative,
    is_destroy: run.isDestroy,
    refresh: run.refresh,
    refresh_only: run.refreshOnly,
    target_addrs: run.targetAddrs,
    replace_addrs: run.replaceAddrs,
    organization: { name: org?.name ?? '' },
    workspace: {
      id: workspace.id,
      name: workspace.name,
      created_at: workspace.createdAt,
      description: workspace.description,
      ...(org ? { execution_mode: effectiveExecution(workspace, org).mode } : {}),
      auto_apply: workspace.autoApply,
      working_directory: workspace.workingDirectory ?? '',
    },
  };
}

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

// At most this many checks evaluate at once (each in a sandbox process with its own heap bound), so a burst
// of plans finishing together cannot multiply the memory the server needs.
const CONCURRENT_CHECKS = 2;
let evaluating = 0;
const waiting: Array<() => void> = [];
async function fewAtATime<T>(fn: () => Promise<T>): Promise<T> {
  if (evaluating >= CONCURRENT_CHECKS) await new Promise<void>((resolve) => waiting.push(resolve));
  evaluating++;
  try {
    return await fn();
  } finally {
    evaluating--;
    waiting.shift()?.();
  }
}

/** The comment lines a policy file starts with: its description, as the log shows it. */
function descriptionOf(source: string): string[] {
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    const m = /^\s*(?:#|\/\/)\s?(.*)$/.exec(line);
    if (!m) break;
    lines.push(m[1]!.trimEnd());
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const word = (v: boolean | null | undefined) => (v === true ? 'TRUE' : v === false ? 'FALSE' : 'UNDEFINED');

/**
 * The check's log, in the layout the Terraform CLI prints under "Organization Policy Check:" on
 * HCP Terraform: the overall result, then per policy its result, description, print() output and
 * the rules the result came from (main first) with where each is declared.
 */
function sentinelLog(policies: readonly Evaluable[], results: readonly SandboxResult[], outcomes: readonly PolicyOutcome[]): string {
  const all = outcomes.every((o) => o.result);
  const broken = results.some((r) => r.error || r.result === undefined);
  const why = all
    ? 'Every policy evaluated to true.'
    : broken
      ? 'At least one policy did not evaluate to true: it failed with an error, hit a limit, or its\nmain rule was undefined. Its section below says which.'
      : 'At least one policy evaluated to false. None failed with an error or was undefined.';
  const out = [`Sentinel Result: ${all}`, '', why, '', `${outcomes.length} policies evaluated.`, ''];
  outcomes.forEach((o, i) => {
    const r = results[i]!;
    const file = `${o.policy}.sentinel`;
    out.push(`## Policy ${i + 1}: ${o.policySetName}/${o.policy} (${o.enforcementLevel})`, '', `Result: ${o.result}`, '');
    const description = descriptionOf(policies[i]!.source);
    if (description.length > 0) out.push('Description:', ...description.map((l) => (l ? `  ${l}` : '')), '');
    if (o.error) out.push(`Error: ${o.error}`, '');
    if (r.prints.length > 0) out.push('Print messages:', '', ...r.prints, '');
    const at = (name: string) => {
      const p = r.rulePositions[name];
      return p ? `${file}:${p.line}:${p.column}` : file;
    };
    if (!r.error) {
      out.push(`${word(r.result)} - ${at('main')} - Rule "main"`);
      for (const [name, value] of Object.entries(r.rules)) if (name !== 'main') out.push(`  ${word(value)} - ${at(name)} - Rule "${name}"`);
      out.push('');
    }
  });
  return out.join('\n');
}

export function createPolicyChecksService(deps: {
  database: Database;
  runs: RunsService;
  workspaces: WorkspacesService;
  jobs: JobsService;
  policies: PoliciesService;
  policySets: PolicySetsService;
  policySetVersions: PolicySetVersionsService;
  policySetParameters: PolicySetParametersService;
  blobs: BlobStore;
  /** The wall-clock bound of one policy's evaluation (HANGAR_POLICY_TIMEOUT). */
  timeoutMs: number;
  /** The heap of the sandbox process a check's policies run in, in MiB (HANGAR_POLICY_MEMORY). */
  memoryMb: number;
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
    for (const d of manifest.statics ?? []) modules[d.name] = { data: d.data };
    const defaults: Record<string, unknown> = {};
    for (const p of manifest.params) defaults[p.name] = p.value;
    return manifest.policies.map((p) => ({ name: p.name, level: level(p.enforcementLevel), source: p.source ?? '', modules, defaults }));
  }

  /** Evaluates every applicable set, in a sandbox; returns the outcome and the log (scrubbed). */
  async function evaluateSets(run: Run): Promise<{ result: CheckResult; output: string }> {
    const started = performance.now();
    const workspace = await workspaceOf(db, run);
    const org = await deps.workspaces.organizationOf(workspace);
    const sets = await deps.policySets.applyingTo(db, workspace);
    const plan = (await deps.jobs.ofRuns(db, [run.id])).find((j) => j.phase === 'plan');
    const planJson = plan ? await deps.jobs.getBlob(db, plan.id, 'plan-json') : undefined;
    const planned: Array<Evaluable & { set: { id: string; name: string } }> = [];
    const policies: SandboxPolicy[] = [];
    const secrets: string[] = [];
    for (const set of sets) {
      const parameters = await deps.policySetParameters.runtimeParameters(set.id);
      // As stored, and as the policy sees it (a JSON string's text): both are kept out of the log.
      for (const p of parameters.filter((p) => p.sensitive)) {
        const v = paramValue(p.value);
        secrets.push(...(typeof v === 'string' ? [p.value, v] : [p.value]).filter((x) => x.length > 0));
      }
      for (const policy of await policiesOf(set.id)) {
        const params: Record<string, unknown> = { ...policy.defaults };
        for (const p of parameters) params[p.key] = paramValue(p.value);
        planned.push({ ...policy, set: { id: set.id, name: set.name } });
        policies.push({ source: policy.source, filename: `${policy.name}.sentinel`, params, imports: policy.modules });
      }
    }
    secrets.sort((a, b) => b.length - a.length);
    const results =
      policies.length === 0
        ? []
        : await fewAtATime(() =>
            evaluateInSandbox({
              policies,
              terraform: {
                planJson: planJson ?? null,
                run: runDescription(run, workspace, org),
              },
              limits: { timeoutMs: deps.timeoutMs, memoryMb: deps.memoryMb },
            }),
          );
    const outcomes: PolicyOutcome[] = planned.map((policy, i) => {
      const r = results[i]!;
      const error = r.error ? scrub(describeError(r.error), secrets) : null;
      return {
        policySetId: policy.set.id,
        policySetName: policy.set.name,
        policy: policy.name,
        enforcementLevel: policy.level,
        result: r.result === true && !error,
        error,
      };
    });
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
    return { result, output: scrub(sentinelLog(planned, results, outcomes), secrets) };
  }

  // A check's log is written once, when it settles, and read whole: these two are the only places
  // that touch where it is kept. It is a sealed blob like every other log (blobs/). It is written
  // before the check settles, so whoever sees the final status finds the whole log.
  const logKey = (check: PolicyCheck): BlobKey => ({ family: 'policy-checks', owner: check.id, name: 'log' });
  const settleWithLog = async (check: PolicyCheck, to: PolicyCheckStatus, extra: { result?: CheckResult; output: string }) => {
    await deps.blobs.put(logKey(check), Buffer.from(extra.output, 'utf8'));
    return store.settleCheck(db, check, ['queued'], to, now(), extra.result ? { result: extra.result } : {});
  };
  // Checks settled before logs became blobs keep theirs in the row.
  const logOf = async (check: PolicyCheck): Promise<string> => (await deps.blobs.get(logKey(check)))?.toString('utf8') ?? check.output ?? '';

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
        await settleWithLog(check, status, { result, output });
        outcome = status === 'passed' ? 'passed' : status === 'soft_failed' ? 'override' : 'errored';
        if (status === 'hard_failed') reason = 'A hard-mandatory policy failed';
        if (status === 'errored') reason = `A policy could not be evaluated: ${result.policies.find((p) => p.error)!.error}`;
      } catch (e) {
        // Never a stuck run: whatever went wrong ends the check, and the run, errored.
        await settleWithLog(check, 'errored', { output: 'The policy check could not run.\n' });
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
      return logOf(check);
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

    /** The checks of runs the caller has read (a run list's `include=policy_checks`). */
    async ofRuns(caller: Caller, runs: ReadonlyArray<{ run: Run }>): Promise<PolicyCheckView[]> {
      const checks = await store.checksOfRuns(
        db,
        runs.map((v) => v.run.id),
      );
      // Whether the caller may override is a question about each run's workspace: asked once per workspace.
      const workspaceOfRun = new Map(runs.map((v) => [v.run.id, v.run.workspaceId]));
      const found = new Map<string, Parameters<typeof can>[0]>();
      for (const id of new Set(workspaceOfRun.values())) found.set(id, await deps.workspaces.find(caller, { id }));
      return checks.map((c) => viewOf(c, found.get(workspaceOfRun.get(c.runId)!)!));
    },

    /** The runs of checks listed, for `include=run`. */
    runViews: (caller: Caller, runId: string) => deps.runs.show(caller, runId),
  };
}

export type PolicyChecksService = ReturnType<typeof createPolicyChecksService>;
