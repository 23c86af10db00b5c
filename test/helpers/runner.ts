// What the tests that execute runs in-process share: a configuration as Terraform uploads it, its
// upload through the signed URL, and the server's own runner started for the suite (and stopped
// before the suite's database closes).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { startRunner } from '../../src/runner/start.ts';
import type { Workers } from '../../src/runner/workers.ts';
import type { VariableSource } from '../../src/runner/port.ts';
import { assertStatus } from './assert.ts';
import type { TestContext } from './harness.ts';

/** A .tar.gz of the given files, as Terraform uploads a configuration. */
export function configArchive(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-cfg-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const out = path.join(dir, 'config.tar.gz');
    tar.create({ gzip: true, cwd: dir, sync: true, file: out, portable: true }, Object.keys(files));
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A new configuration version of the workspace holding `files`, uploaded; its id. */
export async function uploadConfiguration(
  ctx: TestContext,
  token: string,
  workspaceId: string,
  files: Record<string, string>,
  speculative = false,
): Promise<string> {
  const cv = await ctx.post(`/api/v2/workspaces/${workspaceId}/configuration-versions`, token, {
    data: { type: 'configuration-versions', attributes: { speculative } },
  });
  assertStatus(cv, 201);
  const res = await ctx.app.inject({ method: 'PUT', url: new URL(cv.body.data.attributes['upload-url']).pathname, payload: configArchive(files) });
  assert.equal(res.statusCode, 200);
  return cv.body.data.id;
}

/**
 * The server's own runner for the suite, with the real `terraform` on PATH; call it in `before`.
 * It is stopped before the suite's own `after` closes the database (`beforeStop` runs first).
 */
export function startSuiteRunner(ctx: TestContext, options: { concurrency?: number; variables?: VariableSource; beforeStop?: () => void } = {}): Workers {
  const runner = startRunner({
    services: ctx.services,
    database: ctx.database,
    config: {
      runnerConcurrency: options.concurrency ?? 2,
      runTimeoutMs: 120_000,
      runMaxLogBytes: 1024 * 1024,
      terraformBinary: 'terraform',
      terraformPluginCacheDir: null,
      terraformCliConfigFile: null,
    },
    ...(options.variables ? { variables: options.variables } : {}),
    path: process.env.PATH,
    pollMs: 500,
  });
  const stop = ctx.stop.bind(ctx);
  ctx.stop = async () => {
    options.beforeStop?.();
    await runner.stop();
    await stop();
  };
  return runner;
}

/**
 * Moves the run's queued plan to `planning` as a runner's claim and start would, or on to a
 * finished plan with changes (`planned`) holding `planJson` as its plan JSON: no terraform
 * involved. The ids of the run's plan and apply.
 */
export async function advancePlan(
  ctx: TestContext,
  runId: string,
  to: 'planning' | 'planned',
  planJson = '{"format_version":"1.2"}',
): Promise<{ planId: string; applyId: string }> {
  const { jobs, runs } = ctx.services;
  const db = ctx.database.db;
  const all = await jobs.ofRuns(db, [runId]);
  const queued = all.find((j) => j.phase === 'plan')!;
  const at = new Date().toISOString();
  const running = await jobs.move(db, queued, ['queued'], 'running', at, { runner: 'test', heartbeatAt: at });
  assert.ok(running, `the plan of ${runId} was ${queued.status}, not queued`);
  await runs.pipeline.started(running);
  if (to === 'planned') {
    await jobs.appendLog(running.id, Buffer.from('Plan: 1 to add, 0 to change, 0 to destroy.\n'));
    await ctx.database.transaction(async (trx) => {
      await jobs.putBlob(trx, running.id, 'plan-json', Buffer.from(planJson));
      await jobs.putBlob(trx, running.id, 'plan-file', Buffer.from('plan'));
    });
    await runs.pipeline.planned(running, { additions: 1, changes: 0, destructions: 0, imports: 0 }, true);
  }
  return { planId: queued.id, applyId: all.find((j) => j.phase === 'apply')!.id };
}
