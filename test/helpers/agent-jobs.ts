// Runs of workspaces in `agent` mode, and calls to the job protocol under /api/agent/jobs.
import path from 'node:path';
import type { Response, TestContext } from './harness.ts';
import { createWorkspace, type Org } from './projects.ts';
import { configArchive } from './runner.ts';

/** A new workspace of `org` in agent mode on `poolId`, with an uploaded configuration. */
export async function agentWorkspace(ctx: TestContext, org: Org, poolId: string, token = org.owner.token): Promise<{ workspaceId: string; cvId: string }> {
  const ws = await createWorkspace(ctx, org, undefined, {}, token);
  const patched = await ctx.patch(`/api/v2/workspaces/${ws.id}`, token, {
    data: { type: 'workspaces', attributes: { 'execution-mode': 'agent', 'agent-pool-id': poolId } },
  });
  if (patched.status !== 200) throw new Error(`agent mode failed: ${patched.status} ${patched.raw}`);
  const cv = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, token, { data: { type: 'configuration-versions' } });
  if (cv.status !== 201) throw new Error(`configuration version failed: ${cv.status} ${cv.raw}`);
  const archive = configArchive({ 'main.tf': 'resource "terraform_data" "a" {\n  input = "x"\n}\n' });
  const up = await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: archive });
  if (up.statusCode !== 200) throw new Error(`upload failed: ${up.statusCode} ${up.body}`);
  return { workspaceId: ws.id, cvId: cv.body.data.id };
}

/** A new run of a new agent-mode workspace: its plan job is queued for the pool. */
export async function agentRun(ctx: TestContext, org: Org, poolId: string, token = org.owner.token) {
  const { workspaceId, cvId } = await agentWorkspace(ctx, org, poolId, token);
  const run = await ctx.post('/api/v2/runs', token, {
    data: {
      type: 'runs',
      attributes: { 'auto-apply': true },
      relationships: {
        workspace: { data: { type: 'workspaces', id: workspaceId } },
        'configuration-version': { data: { type: 'configuration-versions', id: cvId } },
      },
    },
  });
  if (run.status !== 201) throw new Error(`run failed: ${run.status} ${run.raw}`);
  const jobs = await ctx.services.jobs.ofRuns(ctx.database.db, [run.body.data.id]);
  return {
    workspaceId,
    runId: run.body.data.id as string,
    planJobId: jobs.find((j) => j.phase === 'plan')!.id,
    applyJobId: jobs.find((j) => j.phase === 'apply')!.id,
  };
}

/** Marks a queued job as claimed by `runner` (as the claim would), without racing other queued jobs of the pool. */
export async function holdJob(ctx: TestContext, jobId: string, runner: string): Promise<void> {
  const job = (await ctx.services.jobs.find(ctx.database.db, jobId))!;
  const at = new Date().toISOString();
  const moved = await ctx.services.jobs.move(ctx.database.db, job, ['queued'], 'running', at, { runner, heartbeatAt: at });
  if (!moved) throw new Error(`job ${jobId} was ${job.status}, not queued`);
}

/** A call to the job protocol (`/api/agent/jobs/...`), plain JSON. */
export function jobCall(ctx: TestContext, method: 'GET' | 'POST', path: string, token: string | null, body?: unknown): Promise<Response> {
  return ctx.request(method, `/api/agent/jobs/${path}`, { token, body, contentType: body === undefined ? null : 'application/json' });
}
