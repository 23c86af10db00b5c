import { toOne } from '../jsonapi/relationships.ts';
import type { Job } from '../jobs/service.ts';
import type { Comment, ListedRunView, RunEvent } from './service.ts';
import { RUN_LIFECYCLE, forceCancelAvailableAt } from './statuses.ts';

/** The Terraform version Hangar's runner reports (the installed binary's; see runner/terraform.ts). */
export interface RunSerializeContext {
  terraformVersion: string;
}

/** A `runs` resource. */
export function runResource({ run, plan, apply, may, commentIds, policyCheckIds }: ListedRunView, context: RunSerializeContext) {
  const rule = RUN_LIFECYCLE[run.status];
  const running = run.status === 'planning' || run.status === 'applying';
  const canceledAt = run.statusTimestamps['canceled-at'] ?? run.statusTimestamps['force-canceled-at'] ?? null;
  // A cancel of an executing phase is a request: the run goes on until terraform stops, and
  // force-cancel opens after the cool-off. A run canceled at once shows the time all the same, as
  // TFE does (go-tfe's TestRunsForceCancel reads it after a cancel).
  const requestedAt = running ? ((run.status === 'planning' ? plan : apply).cancelRequestedAt ?? null) : null;
  const forceAt = forceCancelAvailableAt(requestedAt ?? run.statusTimestamps['canceled-at'] ?? null);
  return {
    id: run.id,
    type: 'runs',
    attributes: {
      actions: {
        'is-cancelable': rule.cancelable && requestedAt === null,
        'is-confirmable': rule.confirmable,
        'is-discardable': rule.discardable,
        'is-force-cancelable': requestedAt !== null && Date.parse(forceAt!) <= Date.now(),
      },
      'allow-empty-apply': run.allowEmptyApply,
      'auto-apply': run.autoApply,
      'canceled-at': canceledAt,
      'created-at': run.createdAt,
      'force-cancel-available-at': forceAt,
      'has-changes': run.hasChanges,
      'is-destroy': run.isDestroy,
      message: run.message,
      permissions: {
        'can-apply': may.apply,
        'can-cancel': may.queue,
        'can-comment': may.queue,
        'can-discard': may.queue,
        'can-force-cancel': may.queue,
        'can-force-execute': may.queue,
      },
      'plan-only': run.planOnly || run.speculative,
      'position-in-queue': 0,
      refresh: run.refresh,
      'refresh-only': run.refreshOnly,
      'replace-addrs': run.replaceAddrs,
      'save-plan': run.savePlan,
      source: run.source,
      status: run.status,
      'status-timestamps': run.statusTimestamps,
      'target-addrs': run.targetAddrs,
      'terraform-version': run.terraformVersion ?? context.terraformVersion,
      'trigger-reason': 'manual',
      variables: run.variables.map((v) => ({ key: v.key, value: v.value })),
    },
    relationships: {
      workspace: toOne('workspaces', run.workspaceId),
      'configuration-version': toOne('configuration-versions', run.configurationVersionId),
      'created-by': run.createdByUserId ? toOne('users', run.createdByUserId) : { data: null },
      'confirmed-by': run.confirmedByUserId ? toOne('users', run.confirmedByUserId) : { data: null },
      plan: toOne('plans', plan.id),
      apply: toOne('applies', apply.id),
      'run-events': { data: [], links: { related: `/api/v2/runs/${run.id}/run-events` } },
      comments: { data: commentIds.map((id) => ({ id, type: 'comments' })), links: { related: `/api/v2/runs/${run.id}/comments` } },
      'policy-checks': { data: policyCheckIds.map((id) => ({ id, type: 'policy-checks' })), links: { related: `/api/v2/runs/${run.id}/policy-checks` } },
      'task-stages': { data: [] },
    },
    links: { self: `/api/v2/runs/${run.id}` },
  };
}

// TFE names a phase's timestamps after its statuses, but `started-at` for running.
const stampName = (key: string) => (key === 'running-at' ? 'started-at' : key);

/** A `plans` or `applies` resource: a view of the run's job for that phase. */
export function phaseResource(job: Job, view: Pick<ListedRunView, 'run'>, logReadUrl: string) {
  const stamps = Object.fromEntries(Object.entries(job.statusTimestamps).map(([k, v]) => [stampName(k), v]));
  return {
    id: job.id,
    type: job.phase === 'plan' ? 'plans' : 'applies',
    attributes: {
      'has-changes': job.phase === 'plan' ? view.run.hasChanges : (job.additions ?? 0) + (job.changes ?? 0) + (job.destructions ?? 0) > 0,
      'log-read-url': logReadUrl,
      'resource-additions': job.additions ?? 0,
      'resource-changes': job.changes ?? 0,
      'resource-destructions': job.destructions ?? 0,
      'resource-imports': job.imports ?? 0,
      status: job.status,
      'status-timestamps': stamps,
      'execution-details': { mode: job.agentPoolId ? 'agent' : 'remote' },
    },
    relationships: { run: toOne('runs', view.run.id) },
    links: {
      self: `/api/v2/${job.phase === 'plan' ? 'plans' : 'applies'}/${job.id}`,
      ...(job.phase === 'plan' ? { 'json-output': `/api/v2/plans/${job.id}/json-output` } : {}),
    },
  };
}

export function runEventResource(e: RunEvent) {
  return {
    id: e.id,
    type: 'run-events',
    attributes: { action: e.action, 'created-at': e.createdAt, description: e.description },
    relationships: {
      actor: e.actorUserId ? toOne('users', e.actorUserId) : { data: null },
      comment: e.commentId ? toOne('comments', e.commentId) : { data: null },
    },
    links: { self: `/api/v2/run-events/${e.id}` },
  };
}

export function commentResource(c: Comment) {
  return {
    id: c.id,
    type: 'comments',
    attributes: { body: c.body, 'created-at': c.createdAt },
    relationships: { run: toOne('runs', c.runId), 'created-by': c.createdByUserId ? toOne('users', c.createdByUserId) : { data: null } },
    links: { self: `/api/v2/comments/${c.id}` },
  };
}
