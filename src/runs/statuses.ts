// The run lifecycle as data: every status a run can be in, which it may move to, and what each
// means to the queue and to the caller's actions. Every status change in Hangar goes through
// `canMove` (runs/service.ts `move`), so a rule lives here once instead of in scattered ifs.

export const RUN_STATUSES = [
  'pending',
  'plan_queued',
  'planning',
  'planned',
  'planned_and_finished',
  'planned_and_saved',
  'confirmed',
  'apply_queued',
  'applying',
  'applied',
  'discarded',
  'errored',
  'canceled',
  'force_canceled',
  'policy_checking',
  'policy_checked',
  'policy_override',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

interface StatusRule {
  /** Where a run in this status may go next. */
  next: readonly RunStatus[];
  /** The run is over: it holds no lock, and the workspace's next run may start. */
  final: boolean;
  /** Actions a caller may take (besides the transitions the runner makes). */
  cancelable: boolean;
  discardable: boolean;
  confirmable: boolean;
}

const rule = (next: readonly RunStatus[], flags: Partial<Omit<StatusRule, 'next'>> = {}): StatusRule => ({
  next,
  final: false,
  cancelable: false,
  discardable: false,
  confirmable: false,
  ...flags,
});
const FINAL = rule([], { final: true });

// `canceled` and `force_canceled` are reachable from every unfinished status (a site admin's
// force-cancel); a caller's own cancel and discard are limited by `cancelable`/`discardable`.
export const RUN_LIFECYCLE: Record<RunStatus, StatusRule> = {
  // Waiting in the workspace's queue for the lock (or for a runner to pick up a speculative plan).
  pending: rule(['plan_queued', 'discarded', 'canceled', 'errored', 'force_canceled'], { cancelable: true, discardable: true }),
  plan_queued: rule(['planning', 'canceled', 'errored', 'force_canceled'], { cancelable: true }),
  planning: rule(['policy_checking', 'planned', 'planned_and_finished', 'planned_and_saved', 'errored', 'canceled', 'force_canceled'], { cancelable: true }),
  // Waiting for confirmation (or auto-applied at once).
  planned: rule(['confirmed', 'discarded', 'errored', 'canceled', 'force_canceled'], { discardable: true, confirmable: true }),
  planned_and_saved: rule(['confirmed', 'discarded', 'errored', 'canceled', 'force_canceled'], { discardable: true, confirmable: true }),
  // The plan's policy checks (policy-checks/): passed (or only advisory failures), a soft-mandatory
  // failure waiting for an override, or errored (a hard-mandatory failure, or an evaluation error).
  policy_checking: rule(['policy_checked', 'policy_override', 'errored', 'canceled', 'force_canceled'], { cancelable: true }),
  policy_override: rule(['policy_checked', 'discarded', 'errored', 'canceled', 'force_canceled'], { discardable: true }),
  policy_checked: rule(['confirmed', 'discarded', 'errored', 'canceled', 'force_canceled'], { discardable: true, confirmable: true }),
  confirmed: rule(['apply_queued', 'canceled', 'errored', 'force_canceled']),
  apply_queued: rule(['applying', 'canceled', 'errored', 'force_canceled'], { cancelable: true }),
  applying: rule(['applied', 'errored', 'canceled', 'force_canceled'], { cancelable: true }),
  // No changes, or a plan-only run: nothing left to do.
  planned_and_finished: FINAL,
  applied: FINAL,
  discarded: FINAL,
  errored: FINAL,
  canceled: FINAL,
  force_canceled: FINAL,
};

export const canMove = (from: RunStatus, to: RunStatus): boolean => RUN_LIFECYCLE[from].next.includes(to);
export const isFinal = (status: RunStatus): boolean => RUN_LIFECYCLE[status].final;
/** Statuses a run moves out of by a runner's work: a runner is (or should be) busy with it. */
export const ACTIVE_STATUSES: readonly RunStatus[] = ['plan_queued', 'planning', 'confirmed', 'apply_queued', 'applying'];
/** The statuses from which `to` can be reached: the WHERE of a conditional UPDATE. */
export const sourcesOf = (to: RunStatus): RunStatus[] => RUN_STATUSES.filter((s) => canMove(s, to));

/** The phase job statuses, as TFE's plan and apply statuses. */
export const JOB_STATUSES = ['pending', 'queued', 'running', 'finished', 'errored', 'canceled', 'unreachable'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type JobPhase = 'plan' | 'apply';

/**
 * Seconds after a cancel request when force-cancel becomes available (TFE's cool-off: a cancel
 * first gives terraform the chance to stop cleanly and write its state).
 */
export const FORCE_CANCEL_COOLDOWN_SECONDS = 10;

/** When force-cancel becomes available after a cancel requested at `requestedAt` (null: none was). */
export const forceCancelAvailableAt = (requestedAt: string | null): string | null =>
  requestedAt ? new Date(Date.parse(requestedAt) + FORCE_CANCEL_COOLDOWN_SECONDS * 1000).toISOString() : null;
