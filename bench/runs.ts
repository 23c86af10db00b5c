// The runs scenarios of `npm run bench` (alone: `npm run bench -- --only runs`), measured on the
// bench's server with its own runner (HANGAR_RUNNER_CONCURRENCY=2) and the real terraform:
//   1. run created → plan job started, on an idle server: a runner must be woken, not left to
//      its polling interval (p50 ≤ 100 ms). One function per runner kind: the in-process runner
//      now; an agent variant plugs in beside it (`RUNNERS`) once `hangar agent` exists.
//   2. a remote plan of a no-op configuration, as the CLI waits for it (POST, then polling the
//      run), against `terraform plan` run here with a local state file (≤ 1.5×).
//   3. reading a 10 MiB log through the log URL, as go-tfe reads it (offset/limit until ETX),
//      against a bare route serving the same bytes the same way (≤ 2×).
//   4. 200 runs queued over 100 workspaces (two each): all drain, no workspace starved (every
//      workspace's first run has started by the time 60% of the drain has passed), runs per minute.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { median, startProcess } from './lib.ts';
import { goal, type Row } from './report.ts';
import { client, type Api } from './setup.ts';

const SECTION = 'Runs';
// No resources and no outputs: every plan of it, the first too, has nothing to do.
export const NO_OP = 'locals {\n  greeting = "hello"\n}\n';
// About 10 MiB of plan output: 1,000 strings of 100 lines, rendered as heredocs (the log keeps
// HANGAR_RUN_MAX_LOG_BYTES, 10 MiB by default, and notes the cut).
const BIG_LOG =
  'resource "terraform_data" "big" {\n  input = [for i in range(1000) : join("\\n", [for j in range(100) : "line ${i}-${j} 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789ab"])]\n}\n';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FINAL = new Set(['planned_and_finished', 'planned', 'applied', 'errored', 'discarded', 'canceled', 'force_canceled']);

export function archive(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-bench-cfg-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    const out = path.join(dir, 'config.tar.gz');
    tar.create({ gzip: true, cwd: dir, sync: true, file: out, portable: true }, Object.keys(files));
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function workspace(api: Api, org: string, name: string, config: string): Promise<string> {
  const ws = await api.post(`/organizations/${org}/workspaces`, { data: { type: 'workspaces', attributes: { name } } });
  const cv = await api.post(`/workspaces/${ws.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: {} } });
  const res = await fetch(cv.attributes['upload-url'], { method: 'PUT', body: archive({ 'main.tf': config }) });
  if (!res.ok) throw new Error(`upload: ${res.status}`);
  // The upload is processed when it lands; the run create below needs it `uploaded`.
  for (let i = 0; i < 200; i++) {
    if ((await api.get(`/configuration-versions/${cv.id}`)).data.attributes.status === 'uploaded') break;
    await sleep(25);
  }
  return ws.id;
}

const runBody = (workspaceId: string, attributes: Record<string, unknown> = {}) => ({
  data: { type: 'runs', attributes, relationships: { workspace: { data: { type: 'workspaces', id: workspaceId } } } },
});

async function untilFinal(api: Api, runId: string, everyMs = 20, timeoutMs = 900_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = (await api.get(`/runs/${runId}?include=plan`)) as any;
    const status = run.data.attributes.status;
    if (status === 'planned_and_finished') return run;
    if (FINAL.has(status)) throw new Error(`run ${runId} ended ${status}, not planned_and_finished`);
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.data.attributes.status}`);
    await sleep(everyMs);
  }
}

/** The runner kinds the created → started scenario measures; `hangar agent` adds its own here. */
const RUNNERS: Array<{ label: string; goalKey: string; workspace: (api: Api, org: string) => Promise<string> }> = [
  { label: "Hangar's own runner (in-process)", goalKey: 'runs.started.local', workspace: (api, org) => workspace(api, org, 'bench-started-local', NO_OP) },
];

/** ms from a run's `created-at` to its `planning-at` (the runner took the plan job), by the server's clock. */
async function createdToStarted(api: Api, workspaceId: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const created = await api.post('/runs', runBody(workspaceId));
    const run = await untilFinal(api, created.id);
    const a = run.data.attributes;
    out.push(Date.parse(a['status-timestamps']['planning-at']) - Date.parse(a['created-at']));
    // Idle between runs: the runners are back waiting before the next is created.
    await sleep(300);
  }
  return out;
}

function terraform(dir: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('terraform', args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 || code === 2 ? resolve(performance.now() - started) : reject(new Error(`terraform ${args[0]} exited ${code}`))));
  });
}

/** The framed log behind a log URL (or the bare route), read in 1 MiB pieces until ETX as go-tfe does. */
async function readFramed(url: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const u = new URL(url);
    u.searchParams.set('offset', String(offset));
    u.searchParams.set('limit', String(1024 * 1024));
    const res = await fetch(u);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (!res.ok) throw new Error(`log: ${res.status}`);
    parts.push(bytes);
    offset += bytes.length;
    if (bytes.length === 0 || bytes[bytes.length - 1] === 0x03) return Buffer.concat(parts);
  }
}

/**
 * A bare Fastify route answering offset/limit over `bytes`, as the log URL does, in a process of
 * its own (bench/baseline.ts), as Hangar's server is: in the bench's own process it shared an
 * event loop with the client reading it, and moved from run to run with that process's state.
 */
async function bareLogRoute(bytes: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-bench-log-'));
  const file = path.join(dir, 'log');
  writeFileSync(file, bytes);
  const server = await startProcess('bench/baseline.ts', [], { BASELINE_LOG: file }, /listening (http:\/\/127\.0\.0\.1:\d+)/);
  return {
    url: `${server.url}/log`,
    close: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function runRows(opts: { url: string; token: string; quick: boolean; log: (m: string) => void }): Promise<Row[]> {
  const { quick, log } = opts;
  const api = client(opts.url, opts.token);
  const org = `bench-runs-${Date.now().toString(36)}`;
  await api.post('/organizations', { data: { type: 'organizations', attributes: { name: org, email: `${org}@bench.test` } } });
  const rows: Row[] = [];
  const ms = (x: number) => `${x.toFixed(0)} ms`;

  for (const r of RUNNERS) {
    log(`runs: created → started, ${r.label}`);
    const times = await createdToStarted(api, await r.workspace(api, org), quick ? 5 : 20);
    const p50 = median(times);
    rows.push({
      section: SECTION,
      label: `run created → plan job started, idle server: ${r.label}`,
      value: `p50 ${ms(p50)}, max ${ms(Math.max(...times))} (${times.length} runs)`,
      goals: [goal(r.goalKey, `run created → plan started p50 ≤ 100 ms (${r.label})`, p50, '<=', 100, '≤ 100 ms')],
    });
  }

  log('runs: remote plan of a no-op configuration vs terraform plan with a local state');
  const noOp = await workspace(api, org, 'bench-no-op', NO_OP);
  const local = mkdtempSync(path.join(tmpdir(), 'hangar-bench-local-'));
  const remote: number[] = [];
  const here: number[] = [];
  try {
    writeFileSync(path.join(local, 'main.tf'), NO_OP);
    await terraform(local, ['init', '-input=false']);
    await terraform(local, ['apply', '-auto-approve', '-input=false']);
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      here.push(await terraform(local, ['plan', '-input=false', '-detailed-exitcode']));
      const started = performance.now();
      const created = await api.post('/runs', runBody(noOp));
      await untilFinal(api, created.id);
      remote.push(performance.now() - started);
    }
  } finally {
    rmSync(local, { recursive: true, force: true });
  }
  rows.push(
    { section: SECTION, label: '`terraform plan` here, local state, no-op configuration', value: `p50 ${ms(median(here))}`, goals: [] },
    {
      section: SECTION,
      label: 'remote plan of the same configuration (POST → final status seen)',
      value: `p50 ${ms(median(remote))}`,
      vs: '`terraform plan` here',
      p50X: median(remote) / median(here),
      goals: [goal('runs.plan', 'remote no-op plan ≤ 1.5× a local terraform plan', median(remote) / median(here), '<=', 1.5, '≤ 1.5×')],
    },
  );

  log('runs: a 10 MiB log through the log URL vs a bare route');
  const bigWs = await workspace(api, org, 'bench-big-log', BIG_LOG);
  const big = await untilFinal(api, (await api.post('/runs', runBody(bigWs, { 'plan-only': true }))).id);
  const logUrl: string = big.included[0].attributes['log-read-url'];
  const framed = await readFramed(logUrl);
  const bare = await bareLogRoute(framed);
  const viaHangar: number[] = [];
  const viaBare: number[] = [];
  try {
    for (let i = 0; i < (quick ? 3 : 7); i++) {
      let t = performance.now();
      await readFramed(bare.url);
      viaBare.push(performance.now() - t);
      t = performance.now();
      await readFramed(logUrl);
      viaHangar.push(performance.now() - t);
    }
  } finally {
    await bare.close();
  }
  const mib = (framed.length / 1024 / 1024).toFixed(1);
  rows.push(
    { section: SECTION, label: `bare route serving the same ${mib} MiB, 1 MiB pieces`, value: `p50 ${ms(median(viaBare))}`, goals: [] },
    {
      section: SECTION,
      label: `read a ${mib} MiB plan log through its log URL, 1 MiB pieces`,
      value: `p50 ${ms(median(viaHangar))}`,
      vs: 'bare route',
      p50X: median(viaHangar) / median(viaBare),
      goals: [goal('runs.log', 'read a 10 MiB log ≤ 2× a bare route', median(viaHangar) / median(viaBare), '<=', 2, '≤ 2×')],
    },
  );

  const workspaces = quick ? 20 : 100;
  log(`runs: ${workspaces * 2} runs queued over ${workspaces} workspaces`);
  const ids = await Promise.all(Array.from({ length: workspaces }, (_, i) => workspace(api, org, `bench-drain-${i}`, NO_OP)));
  const began = Date.now();
  const runs: Array<{ ws: number; id: string }> = [];
  // Round-robin: every workspace's first run, then every workspace's second.
  for (let round = 0; round < 2; round++) for (let i = 0; i < ids.length; i++) runs.push({ ws: i, id: (await api.post('/runs', runBody(ids[i]!))).id });
  const done = new Map<string, any>();
  while (done.size < runs.length) {
    if (Date.now() - began > 30 * 60_000) throw new Error('the drain did not finish in 30 minutes');
    for (const r of runs) {
      if (done.has(r.id)) continue;
      const run = (await api.get(`/runs/${r.id}`)) as any;
      if (FINAL.has(run.data.attributes.status)) done.set(r.id, run.data.attributes);
    }
    await sleep(500);
  }
  const finishedAt = Math.max(
    ...[...done.values()].map((a) => Date.parse(a['status-timestamps']['planned-and-finished-at'] ?? a['status-timestamps']['errored-at'])),
  );
  const drainMs = finishedAt - began;
  const errored = [...done.values()].filter((a) => a.status !== 'planned_and_finished').length;
  const firstStarts = runs.slice(0, ids.length).map((r) => Date.parse(done.get(r.id)['status-timestamps']['planning-at']) - began);
  const latestFirst = Math.max(...firstStarts) / drainMs;
  const perMinute = runs.length / (drainMs / 60_000);
  rows.push({
    section: SECTION,
    label: `${runs.length} runs queued over ${ids.length} workspaces, drained`,
    value: `${perMinute.toFixed(1)} runs/min, ${(drainMs / 1000).toFixed(1)} s, ${errored} not finished cleanly; last first-run started at ${(latestFirst * 100).toFixed(0)}% of the drain`,
    goals: [
      goal('runs.drain', 'queued runs drain, none errored', errored, '<=', 0, 'all finish'),
      goal('runs.fair', 'no workspace starved: every first run started by 60% of the drain', latestFirst, '<=', 0.6, '≤ 60%'),
    ],
  });
  return rows;
}
