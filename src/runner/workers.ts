// The server's own runner: HANGAR_RUNNER_CONCURRENCY loops in this process, each claiming one
// job at a time, woken the moment a job is queued here (and polling, for jobs queued by other
// instances), plus the scheduler: one loop that errors jobs whose runner went silent (releasing
// their workspaces) and starts queues a user's unlock left waiting. Every step of both is a
// conditional write in the database, so many instances may run them side by side.
import { hostname } from 'node:os';
import { randomBase62 } from '../ids.ts';
import type { JobSignal } from '../jobs/service.ts';
import type { RunsService } from '../runs/service.ts';
import { executeJob, type ExecuteOptions } from './execute.ts';
import type { JobPort } from './port.ts';

export interface WorkerOptions {
  concurrency: number;
  /** How long a running job may go without a heartbeat before it is errored. */
  silenceMs: number;
  pollMs: number;
  execute: Omit<ExecuteOptions, 'runner'>;
  /** The auto-destroy pass (auto-destroy/service.ts), run by the scheduler; none: not here. */
  autoDestroy?: { tick(): Promise<unknown> };
  onError?: (e: unknown) => void;
}

export interface Workers {
  /** Waits for the jobs in hand to finish (a job is never abandoned half-way by a clean stop). */
  stop(): Promise<void>;
}

export function startWorkers(port: JobPort, runs: RunsService, signal: JobSignal, options: WorkerOptions): Workers {
  let stopping = false;
  const report = options.onError ?? (() => {});
  const instance = `${hostname()}-${process.pid}-${randomBase62(6)}`;

  async function worker(n: number): Promise<void> {
    const runner = `${instance}/${n}`;
    while (!stopping) {
      try {
        const job = await port.claim(runner);
        if (job) {
          await executeJob(port, job, { ...options.execute, runner });
          continue;
        }
      } catch (e) {
        report(e);
      }
      await signal.wait(options.pollMs);
    }
  }

  async function scheduler(): Promise<void> {
    while (!stopping) {
      try {
        await runs.pipeline.reapSilent(new Date(Date.now() - options.silenceMs).toISOString());
        await runs.pipeline.startWaiting();
        await runs.pipeline.resumePolicyChecks(new Date(Date.now() - options.silenceMs).toISOString());
        await options.autoDestroy?.tick();
      } catch (e) {
        report(e);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(options.silenceMs / 4, 5_000)).unref());
    }
  }

  const loops = [scheduler(), ...Array.from({ length: options.concurrency }, (_, n) => worker(n))];
  return {
    async stop() {
      stopping = true;
      signal.notify();
      await Promise.all(loops);
    },
  };
}
