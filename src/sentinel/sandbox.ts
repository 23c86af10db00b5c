// Evaluating policies somebody else wrote, away from the caller: each batch runs in a fresh child
// process (sandbox-worker.ts) that gets only the policies, their params and the data their imports
// are built from, over its IPC channel: no environment variables, a heap bound, Node's permission
// model with nothing allowed but reading the runtime's own files (no writes, no child processes,
// no workers, no addons), and it is killed when a policy overruns its time. The interpreter
// already stops itself at its step and time bounds; the process bounds what the interpreter cannot
// see: memory, and time spent inside one native call (a regular expression, a sort of a huge list).
//
// A process rather than a worker thread: V8 aborts the whole process when a single allocation
// cannot fit under a worker's heap limit (a worker's resourceLimits only catch gradual growth), so
// a policy building one huge list would take the server down with it. A child that dies of it
// harms no one.
//
//   const results = await evaluateInSandbox({
//     policies: [{ source, filename: 'p.sentinel', params: { max: 3 }, modules: {} }],
//     terraform: { planJson, run: { id: 'run-1' } },
//     limits: { timeoutMs: 10_000, memoryMb: 512 },
//   });
import { fork } from 'node:child_process';
import type { EvaluationResult, ImportSpec, PolicyError } from './index.ts';
import type { RunDescription } from './tfrun.ts';

export interface SandboxPolicy {
  source: string;
  filename: string;
  params: Record<string, unknown>;
  /** Modules (and other imports) of this policy; the Terraform imports take precedence. */
  imports: Record<string, ImportSpec>;
}

export interface SandboxRequest {
  policies: SandboxPolicy[];
  /**
   * Built inside the worker, so a large plan is parsed there too: `tfplan/v2` and `tfconfig/v2`
   * from the plan's JSON, `tfstate/v2` from its `prior_state`, `tfrun` from the run description.
   */
  terraform?: { planJson?: Uint8Array | string | null; run?: RunDescription };
  limits: {
    /** Per policy: the interpreter's own bound, and (plus a grace) when the worker is terminated. */
    timeoutMs: number;
    /** The worker's heap (V8 old generation), in MiB. */
    memoryMb: number;
    maxSteps?: number;
  };
}

/** A policy's outcome as the worker reports it (the rules' values stay inside). */
export type SandboxResult = Omit<EvaluationResult, 'rules'> & { rules: Record<string, boolean | null> };

/** What the child sends: the imports are built, policy `index` started, or it ended. */
export type WorkerMessage = { type: 'ready' } | { type: 'start'; index: number } | { type: 'done'; index: number; result: SandboxResult };

// The interpreter reads its clock every few thousand steps; past this grace after its own time
// bound the child is taken to be stuck in one native call and is killed.
const GRACE_MS = 2_000;
// Loading the runtime and parsing the plan is not policy code; it gets a bound of its own.
const SETUP_MS = 30_000;

const stopped = (filename: string, message: string): SandboxResult => ({
  result: undefined,
  rules: {},
  rulePositions: {},
  prints: [],
  error: { kind: 'limit', message, file: filename, line: 1, column: 1 } satisfies PolicyError,
});

/** Runs the policies in order; one result per policy, in the same order. Never throws for a policy's fault. */
export async function evaluateInSandbox(request: SandboxRequest): Promise<SandboxResult[]> {
  const results: SandboxResult[] = [];
  while (results.length < request.policies.length) {
    const from = results.length;
    const batch = await runWorker(request, from);
    results.push(...batch.results);
    if (batch.failed === null) continue;
    const { index, message } = batch.failed;
    if (index === null) {
      // The worker never got to the policies (its imports could not be built): none can run.
      for (const p of request.policies.slice(results.length)) results.push(stopped(p.filename, message));
    } else {
      // The policy that overran is stopped; those after it get a fresh worker.
      results.push(stopped(request.policies[index]!.filename, message));
    }
  }
  return results;
}

interface Batch {
  results: SandboxResult[];
  /** Why the worker ended early, and during which policy (null: before the first). */
  failed: { index: number | null; message: string } | null;
}

function runWorker(request: SandboxRequest, from: number): Promise<Batch> {
  const { timeoutMs, memoryMb } = request.limits;
  return new Promise((resolve) => {
    const results: SandboxResult[] = [];
    let current: number | null = null;
    let settled = false;
    const runtime = decodeURIComponent(new URL('.', import.meta.url).pathname);
    const child = fork(new URL('./sandbox-worker.ts', import.meta.url), [], {
      // Policy code reaches no environment variable (the server's secrets live there).
      env: {},
      execArgv: [
        `--max-old-space-size=${memoryMb}`,
        '--permission',
        `--allow-fs-read=${runtime}`,
        // As the server itself: a backtracking regular expression falls back to linear time.
        '--enable-experimental-regexp-engine-on-excessive-backtracks',
      ],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    // V8's last words when the heap is exhausted; nothing a policy can write reaches stderr.
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString();
    });
    let timer: NodeJS.Timeout;
    const finish = (failed: Batch['failed']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      resolve({ results, failed });
    };
    const arm = (ms: number, message: string) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish({ index: current, message }), ms);
    };
    arm(SETUP_MS + timeoutMs, `evaluation did not start: loading the policy runtime and its imports took longer than ${SETUP_MS + timeoutMs} ms`);
    child.on('message', (m: WorkerMessage) => {
      if (m.type === 'start') {
        current = from + m.index;
        arm(timeoutMs + GRACE_MS, `evaluation stopped after ${timeoutMs} ms (the time limit)`);
      } else if (m.type === 'done') {
        results.push(m.result);
        current = null;
        clearTimeout(timer);
        if (from + results.length === request.policies.length) finish(null);
      }
    });
    child.on('error', (e) => finish({ index: current, message: `internal error: ${e.message}` }));
    child.on('exit', (code, signal) => {
      if (from + results.length === request.policies.length) return;
      const oom = /heap out of memory|heap limit/i.test(stderr);
      const message = oom
        ? current === null
          ? `evaluation did not start: the plan and the policy's imports need more than ${memoryMb} MiB of memory (the memory limit)`
          : `evaluation stopped: the policy needed more than ${memoryMb} MiB of memory (the memory limit)`
        : `internal error: the evaluation process ended early (${signal ?? `exit code ${code}`})`;
      finish({ index: current, message });
    });
    child.send({ ...request, policies: request.policies.slice(from) });
  });
}
