// The job protocol over HTTP (/api/agent/jobs/...), for `hangar agent` processes: the same calls
// the server's own workers make in-process (runner/port.ts), answered by the same local port
// after one check of who may make them. An agent token reaches only its own pool's jobs (any
// other job is 404), and a job's inputs and results only through the runner that claimed it,
// while it runs: its sensitive variables go to that runner and nobody else.
import type { Api } from '../api.ts';
import type { AgentPrincipal } from '../auth/principal.ts';
import type { AgentsService } from '../agents/service.ts';
import type { Database } from '../db/index.ts';
import type { RunsService } from '../runs/service.ts';
import type { Job, JobSignal, JobsService } from '../jobs/service.ts';
import { errors } from '../jsonapi/errors.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import type { JobPort } from '../runner/port.ts';
import {
  AppliedBody,
  CarryOn,
  ClaimBody,
  ClaimedJob,
  FailedBody,
  JobInputsDocument,
  JobParams,
  LogBody,
  PlannedBody,
  Proceed,
  RunnerBody,
  RunnerQuery,
} from './schemas.ts';

const tags = ['Agent protocol'];
/** Results carry a plan file, a plan's JSON or a state as base64: far above the API's usual body limit. */
const RESULT_BODY_LIMIT = 64 * 1024 * 1024;
const LOG_BODY_LIMIT = 8 * 1024 * 1024;
/** Within a long poll, how often this instance looks again for jobs queued by other instances. */
const RECHECK_MS = 1_000;

const bytes = (b64: string) => Buffer.from(b64, 'base64');

export async function agentProtocolRoutes(
  app: Api,
  deps: { database: Database; jobs: JobsService; jobSignal: JobSignal; agents: AgentsService; runs: RunsService; localPort: JobPort },
): Promise<void> {
  const { database, jobs, jobSignal, agents, runs, localPort: port } = deps;
  // A long poll ends at once when the server shuts down, so that it does not hold the shutdown.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
    jobSignal.notify();
  });

  /** A job of the token's pool, or 404. */
  async function ofPool(agent: AgentPrincipal, jobId: string): Promise<Job> {
    const job = await jobs.find(database.db, jobId);
    if (!job || job.agentPoolId !== agent.agentPoolId) throw errors.notFound();
    return job;
  }
  /** A job of the pool that `runner` holds and that is running; 409 when it is not (any more). */
  async function held(agent: AgentPrincipal, jobId: string, runner: string): Promise<Job> {
    const job = await ofPool(agent, jobId);
    if (job.runner !== runner) throw errors.conflict('The job is not held by this runner');
    if (job.status !== 'running') throw errors.conflict(`The job is ${job.status}, not running`);
    return job;
  }
  /**
   * For a result: the job `runner` holds, or null when that runner's job has already ended (a
   * report repeated because its answer was lost, or one about a job canceled meanwhile): that is
   * answered 204 and changes nothing, as the in-process runner's late reports change nothing.
   */
  async function reporting(agent: AgentPrincipal, jobId: string, runner: string): Promise<Job | null> {
    const job = await ofPool(agent, jobId);
    if (job.runner === runner && ['finished', 'errored', 'canceled'].includes(job.status)) return null;
    return held(agent, jobId, runner);
  }

  /**
   * A job this runner was handed but never started (its run still queued for the phase): a claim
   * whose answer was lost is answered again, rather than leaving the job to the silence timeout.
   * A job the runner started is never handed out again.
   */
  async function unstarted(runner: string): Promise<Job | undefined> {
    for (const job of await jobs.heldBy(runner)) {
      const run = await runs.pipeline.runOf(job.runId);
      if (run?.status === (job.phase === 'plan' ? 'plan_queued' : 'apply_queued')) return job;
    }
    return undefined;
  }

  app.post(
    '/jobs/claim',
    {
      schema: {
        summary: "Claim the oldest queued job of the token's pool, waiting up to `wait` seconds for one (204: none)",
        tags,
        body: ClaimBody,
        response: responses({ 200: ClaimedJob, 204: NoContent }),
      },
    },
    async (request, reply) => {
      const { runner, wait = 0 } = request.body;
      const agentId = runner.slice(0, runner.indexOf('/'));
      if (!(await agents.isInPool(request.agent, agentId))) throw errors.notFound();
      const again = await unstarted(runner);
      if (again) return { id: again.id, 'run-id': again.runId, phase: again.phase, runner };
      const until = Date.now() + wait * 1000;
      for (;;) {
        // A caller that went away (an agent draining) must not be handed a job it will never run.
        if (closing || request.raw.socket?.destroyed) return reply.code(204).send();
        const job = await database.transaction((trx) => jobs.claim(trx, runner, request.agent.agentPoolId));
        if (job) return { id: job.id, 'run-id': job.runId, phase: job.phase, runner };
        const left = until - Date.now();
        if (left <= 0) return reply.code(204).send();
        await jobSignal.wait(Math.min(left, RECHECK_MS));
      }
    },
  );

  app.post(
    '/jobs/:job_id/start',
    { schema: { summary: 'The runner starts its job', tags, params: JobParams, body: RunnerBody, response: responses({ 200: Proceed }) } },
    async (request) => {
      const job = await held(request.agent, request.params.job_id, request.body.runner);
      return { proceed: await port.started(job) };
    },
  );

  app.get(
    '/jobs/:job_id/inputs',
    {
      schema: {
        summary: 'What the job needs: configuration, state, variables (sensitive ones included), the plan file of an apply',
        tags,
        params: JobParams,
        querystring: RunnerQuery,
        response: responses({ 200: JobInputsDocument }),
      },
    },
    async (request) => {
      const job = await held(request.agent, request.params.job_id, request.query.runner);
      const inputs = await port.inputs(job);
      const b64 = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('base64'));
      return {
        'run-id': inputs.runId,
        'workspace-id': inputs.workspaceId,
        phase: job.phase,
        'is-destroy': inputs.isDestroy,
        refresh: inputs.refresh,
        'refresh-only': inputs.refreshOnly,
        'target-addrs': inputs.targetAddrs,
        'replace-addrs': inputs.replaceAddrs,
        archive: b64(inputs.archive)!,
        state: b64(inputs.state),
        variables: inputs.variables.map((v) => ({ key: v.key, value: v.value, category: v.category, hcl: v.hcl, sensitive: v.sensitive })),
        'plan-file': b64(inputs.planFile),
        'terraform-version': inputs.terraformVersion ?? null,
        // Like sensitive variables: only to the runner holding this job (checked above).
        'ssh-key': inputs.sshKey ?? null,
      };
    },
  );

  app.post(
    '/jobs/:job_id/log',
    {
      bodyLimit: LOG_BODY_LIMIT,
      schema: { summary: "Append to the job's log", tags, params: JobParams, body: LogBody, response: responses({ 204: NoContent }) },
    },
    async (request, reply) => {
      const job = await held(request.agent, request.params.job_id, request.body.runner);
      await port.log(job, bytes(request.body.chunk));
      return reply.code(204).send();
    },
  );

  app.post(
    '/jobs/:job_id/heartbeat',
    { schema: { summary: 'The runner is alive and working on its job', tags, params: JobParams, body: RunnerBody, response: responses({ 200: CarryOn }) } },
    async (request) => {
      const job = await ofPool(request.agent, request.params.job_id);
      const answer = await port.heartbeat(job, request.body.runner);
      return { 'carry-on': answer !== false, 'cancel-requested': answer === 'cancel' };
    },
  );

  app.post(
    '/jobs/:job_id/planned',
    {
      bodyLimit: RESULT_BODY_LIMIT,
      schema: {
        summary: 'The plan finished: its plan file, JSON and counts',
        tags,
        params: JobParams,
        body: PlannedBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const job = await reporting(request.agent, request.params.job_id, body.runner);
      if (!job) return reply.code(204).send();
      if (job.phase !== 'plan') throw errors.conflict('The job is an apply');
      await port.planned(job, {
        planFile: bytes(body['plan-file']),
        planJson: Buffer.from(body['plan-json'], 'utf8'),
        counts: body.counts,
        hasChanges: body['has-changes'],
      });
      return reply.code(204).send();
    },
  );

  app.post(
    '/jobs/:job_id/applied',
    {
      bodyLimit: RESULT_BODY_LIMIT,
      schema: { summary: 'The apply finished: the new state and counts', tags, params: JobParams, body: AppliedBody, response: responses({ 204: NoContent }) },
    },
    async (request, reply) => {
      const body = request.body;
      const job = await reporting(request.agent, request.params.job_id, body.runner);
      if (!job) return reply.code(204).send();
      if (job.phase !== 'apply') throw errors.conflict('The job is a plan');
      await port.applied(job, { state: body.state === null ? null : bytes(body.state), counts: body.counts });
      return reply.code(204).send();
    },
  );

  app.post(
    '/jobs/:job_id/failed',
    {
      bodyLimit: RESULT_BODY_LIMIT,
      schema: {
        summary: 'The job failed (with what a failed apply changed)',
        tags,
        params: JobParams,
        body: FailedBody,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const job = await reporting(request.agent, request.params.job_id, body.runner);
      if (!job) return reply.code(204).send();
      const state = body.state && job.phase === 'apply' ? bytes(body.state) : null;
      await port.failed(job, body.reason, state);
      return reply.code(204).send();
    },
  );
}
