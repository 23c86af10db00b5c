// Auto-destroy, as TFE's ephemeral workspaces: a workspace whose infrastructure has been idle for
// its `auto-destroy-activity-duration` (its own, or its project's while it inherits), or whose
// explicit `auto-destroy-at` has come, gets one destroy run, auto-applied. "Idle" is TFE's
// reading: no new state version for that long (a run that changes nothing leaves no trace). The
// scheduler (runner/workers.ts) calls `tick` on every instance; each run is created in one
// transaction with a conditional write (db: workspaces.auto_destroyed_state_version_id, or
// clearing auto_destroy_at), so many instances racing create it once, and a restart loses
// nothing: every fact it needs is in the database.
import { effectiveExecution } from '../workspaces/service.ts';
import type { RunsService } from '../runs/service.ts';
import type { Database } from '../db/index.ts';
import { autoDestroyDurationMs, type ExecutionMode } from '../values.ts';
import * as store from './store.ts';

const BATCH = 50;

export function createAutoDestroyService(deps: { database: Database; runs: RunsService }) {
  const db = deps.database.db;

  /** Where the workspace's runs execute; null: nowhere Hangar runs them (local mode). */
  function poolOf(c: store.Candidate): { agentPoolId: string | null } | null {
    const execution = effectiveExecution(
      { executionMode: c.executionMode as ExecutionMode | null, agentPoolId: c.agentPoolId },
      { defaultExecutionMode: c.orgMode as ExecutionMode, defaultAgentPoolId: c.orgPool },
    );
    return execution.mode === 'local' ? null : { agentPoolId: execution.agentPoolId };
  }

  return {
    /**
     * One pass: every workspace due now gets its destroy run (or, with nothing to destroy, only
     * its claim). Returns the ids of the runs this call created.
     */
    async tick(at: Date = new Date()): Promise<string[]> {
      const created: string[] = [];
      const iso = at.toISOString();
      for (const c of await store.explicitDue(db, iso, BATCH)) {
        const where = poolOf(c);
        const claim = (q: Parameters<typeof store.claimExplicit>[0]) => store.claimExplicit(q, c.id, c.autoDestroyAt);
        // Local mode, or nothing to destroy: the time has passed all the same, and is cleared.
        if (!where || (await store.currentResourceCount(db, c.id)) === 0) {
          await deps.database.transaction(claim);
          continue;
        }
        const id = await deps.runs.pipeline.queueAutoDestroy(c.id, where.agentPoolId, `Auto-destroy: scheduled for ${c.autoDestroyAt}`, claim);
        if (id) created.push(id);
      }
      for (const duration of await store.durationsInEffect(db)) {
        const ms = autoDestroyDurationMs(duration);
        if (ms === null) continue;
        const cutoff = new Date(at.getTime() - ms).toISOString();
        for (const c of await store.idleSince(db, duration, cutoff, BATCH)) {
          const where = poolOf(c);
          const claim = (q: Parameters<typeof store.claimIdle>[0]) => store.claimIdle(q, c.id, c.stateVersionId);
          // No resources (a destroy already ran), or local mode: nothing to run; the claim keeps
          // the workspace from being looked at again until its state changes.
          if (!where || c.resourceCount === 0) {
            await deps.database.transaction(claim);
            continue;
          }
          const id = await deps.runs.pipeline.queueAutoDestroy(c.id, where.agentPoolId, `Auto-destroy: no state change in ${duration}`, claim);
          if (id) created.push(id);
        }
      }
      return created;
    },
  };
}

export type AutoDestroyService = ReturnType<typeof createAutoDestroyService>;
