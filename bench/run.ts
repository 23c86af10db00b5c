// `npm run bench [-- --quick] [-- --postgres]`: runs the real server on a fresh database, sets it
// up as users would (a site admin, an owner, members through team grants and read-projects),
// and measures each scenario interleaved with its reference, three rounds, medians; server CPU
// per request is the primary figure. Results land in bench/results/ beside the other engine's
// last run. The method is described in docs/performance.md.
//
// `--only <group>,…` runs only those groups of scenarios and prints their figures (nothing is
// written to bench/results/). The groups (scenarios.ts says what each measures): show, params,
// list, agent, write; issue 32's list pages of 20: workspaces, teams, tokens, states, runlist,
// params20; and runs (runs.ts). For example `npm run bench -- --only workspaces --quick`.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  cpuMicros,
  hangarCli,
  measure,
  median,
  peakRssMiB,
  startBaseline,
  startHangar,
  summarize,
  timeRuns,
  type CpuProbe,
  type Proc,
  type Run,
  type Sample,
} from './lib.ts';
import { countRoundTrips } from './pgprobe.ts';
import { runRows } from './runs.ts';
import { goal, writeResults, type Engine, type Row } from './report.ts';
import { baselineRoutes, defineScenarios, listPath, tabulate, totalCpu, type Scenario } from './scenarios.ts';
import { CALLER_LABELS, LARGE, PAGES, SMALL, buildWorld, createUsers, type CallerKey, type PageKey, type World } from './setup.ts';

const quick = process.argv.includes('--quick');
const engine: Engine = process.argv.includes('--postgres') ? 'postgres' : 'sqlite';
/** `--only show,agent`: run only the groups of those scenarios (while working on them); nothing is written to bench/results. */
const only = (() => {
  const i = process.argv.indexOf('--only');
  return i >= 0 ? new Set(process.argv[i + 1]?.split(',')) : null;
})();
/**
 * About how many seconds of load per scenario per round (as many requests as the scenario
 * answered in that time last), and the fewest requests that make a figure.
 */
const SECONDS = quick ? 0.15 : 3;
const MIN_REQUESTS = quick ? 10 : 40;
const ROUNDS = 3;
/**
 * Each round runs its groups this many times over, each scenario for SECONDS / PASSES at a time,
 * and adds up what each scenario's runs sent and cost: the load on the rest of the machine changes
 * from second to second, and short alternations let a scenario and its reference share it.
 */
const PASSES = quick ? 1 : 5;
/**
 * Warm-up before the rounds, the same for both servers: each scenario is sent load until it has
 * answered `requests` or been loaded for `seconds`, whichever comes first (a quick run skips
 * Hangar's scenarios slower than 20 ms). Both matter to the ratios: until V8 has optimized a
 * route's code, its requests cost up to twice as much CPU, and a helper thread compiling it adds
 * more. The bare routes reach 20,000 requests in a second or two; Hangar's show used to get a few
 * hundred (half a second at the pace of one cold request), so the first passes of round 1
 * measured it half compiled (docs/performance.md).
 */
const WARMUP = quick ? { requests: 3_000, seconds: 0.3 } : { requests: 20_000, seconds: 3 };

async function main() {
  const began = performance.now();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-bench-'));
  const database = await benchDatabase(dataDir);
  // Two runners: the runs scenarios (bench/runs.ts) drain a queue with them.
  const env: Record<string, string> = { HANGAR_DATA_DIR: dataDir, HANGAR_DATABASE_URL: database.url, HANGAR_RUNNER_CONCURRENCY: '2', ...database.env };
  let server: Proc | undefined;
  let baseline: Proc | undefined;
  // Once, whether the run ends, fails or is interrupted: no server left running, no database left.
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      await server?.stop();
      await baseline?.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  try {
    log(`${engine}: users, and the server`);
    // bootstrap migrates the fresh database: before anything else touches it.
    const admin = await hangarCli(['bootstrap'], env);
    const starting = startHangar(env);
    // `--only runs`: the runs scenarios alone need no world of projects, only the server.
    if (only && [...only].every((g) => g === 'runs')) {
      server = await starting;
      printRows(await runRows({ url: server.url, token: admin, quick, log }));
      return;
    }
    let tokens: Record<CallerKey, string>;
    try {
      tokens = { admin, ...(await createUsers(env)) };
    } finally {
      // Kept even when the users failed, so that the server is stopped below.
      server = await starting;
    }
    log('organizations, projects, parameters, agents, workspaces');
    const world = await buildWorld(server.url, database.url, tokens, database.settle, log);
    const bodiesFile = path.join(dataDir, 'baseline.json');
    writeFileSync(bodiesFile, JSON.stringify(await baselineRoutes(world, server.url)));
    baseline = await startBaseline(bodiesFile);

    const defined = defineScenarios(world, server.url, baseline.url);
    const groups = only ? defined.groups.filter((g) => only.has(g[0]!.split('.')[0]!)) : defined.groups;
    const scenarios = new Map([...defined.scenarios].filter(([id]) => groups.some((g) => g.includes(id))));
    const pids = { hangar: server.pid, baseline: baseline.pid };
    /** Requests per second each scenario answered last: its next run is sized by it. */
    const pace = new Map<string, number>();
    const worth = (id: string, seconds: number) => Math.max(MIN_REQUESTS / PASSES, pace.get(id)! * seconds);
    const run = async (id: string, requests: number) => {
      const s = scenarios.get(id)!;
      const r = await measure(pids[s.target], s.request, requests, s.target === 'hangar' ? database.cpuProbe : undefined);
      pace.set(id, r.requests / r.seconds);
      return r;
    };

    log(`warm-up: ${scenarios.size} scenarios`);
    for (const [id, s] of scenarios) await warmUp(id, s, pace, run);
    const samples = new Map<string, Sample[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}`);
      const runs = new Map<string, Run[]>();
      for (let pass = 0; pass < PASSES; pass++) {
        for (const g of groups) for (const id of g) runs.set(id, [...(runs.get(id) ?? []), await run(id, worth(id, SECONDS / PASSES))]);
      }
      for (const [id, r] of runs) samples.set(id, [...(samples.get(id) ?? []), summarize(r)]);
    }
    const peakRss = peakRssMiB(server.pid);
    if (only) {
      printGroups(groups, scenarios, samples, peakRss);
      if (engine === 'postgres') printRows(await roundTripRows(database.url, env, world, 'round trips', only));
      if (only.has('runs')) printRows(await runRows({ url: server.url, token: admin, quick, log }));
      return;
    }
    const { rows, scale } = tabulate(samples, engine);

    log('moves');
    const OTHER = 'Other figures';
    const owner = CALLER_LABELS.owner;
    const { projects, workspaceIds } = world.move;
    let flip = false;
    const move = (ids: string[]) => async () => {
      flip = !flip;
      await world.api.owner.post(`/projects/${projects[flip ? 1 : 0]}/relationships/workspaces`, { data: ids.map((id) => ({ type: 'workspaces', id })) }, 204);
    };
    // Enough single moves that their CPU time is well above what one reading can resolve.
    const one = await timeRuns(quick ? 30 : 100, server.pid, move(workspaceIds.slice(0, 1)));
    if (flip) await move(workspaceIds.slice(0, 1))();
    const thousand = await timeRuns(quick ? 5 : 15, server.pid, move(workspaceIds));
    const timed = (t: { ms: number; cpuUs: number }) => `${t.ms.toFixed(2)} ms, ${Math.round(t.cpuUs).toLocaleString('en')} µs CPU`;
    rows.push(
      { section: OTHER, label: 'move 1 workspace (median time, mean CPU)', caller: owner, value: timed(one), goals: [] },
      {
        section: OTHER,
        label: 'move 1,000 workspaces in one request',
        caller: owner,
        value: timed(thousand),
        vs: 'move 1 workspace',
        p50X: thousand.ms / one.ms,
        cpuX: thousand.cpuUs / one.cpuUs,
        goals: [],
      },
      {
        section: OTHER,
        label: `peak RSS of the server after the ${LARGE.toLocaleString('en')}-project scenarios`,
        value: `${peakRss ?? '?'} MiB`,
        goals: [goal('rss', `peak RSS after the ${LARGE.toLocaleString('en')}-project scenarios ≤ 200 MiB`, peakRss ?? undefined, '<=', 200, '≤ 200 MiB')],
      },
    );
    rows.push(...(await runRows({ url: server.url, token: admin, quick, log })));
    if (engine === 'postgres') {
      log('round trips');
      rows.push(...(await roundTripRows(database.url, env, world, OTHER)));
    }

    const minutes = Math.round((performance.now() - began) / 6000) / 10;
    const machine = {
      cpus: cpus().length,
      node: process.version,
      quick,
      seconds: SECONDS,
      rounds: ROUNDS,
      passes: PASSES,
      date: new Date().toISOString(),
      minutes,
    };
    console.log(writeResults(engine, { machine, rows, scale }));
  } finally {
    await cleanUp();
  }
}

/**
 * One request first, which must succeed (figures of failing requests would lie) and gives the
 * first pace; then the warm-up load: JIT, caches, connections.
 */
async function warmUp(id: string, s: Scenario, pace: Map<string, number>, run: (id: string, requests: number) => Promise<Run>) {
  const { url, method = 'GET', headers, body, makeBody } = s.request;
  const started = performance.now();
  const res = await fetch(url, { method, headers, body: body ?? makeBody?.() });
  const text = await res.text();
  if (!res.ok) throw new Error(`${id}: ${method} ${url}: ${res.status} ${text.slice(0, 300)}`);
  pace.set(id, 1000 / (performance.now() - started));
  // A slow scenario spends its time in queries, not in code still to be compiled.
  if (s.target === 'hangar' && quick && pace.get(id)! < 50) return;
  // In slices of about a second, each sized by the pace of the last, so that neither limit is
  // overshot by much whatever the first (cold) request's pace was.
  let sent = 0;
  let seconds = 0;
  while (sent < WARMUP.requests && seconds < WARMUP.seconds) {
    const slice = Math.min(WARMUP.requests - sent, Math.max(10, pace.get(id)! * Math.min(1, WARMUP.seconds - seconds)));
    const w = await run(id, slice);
    if (w.errors || w.non2xx) throw new Error(`${id}: ${w.errors} errors, ${w.non2xx} non-2xx during warm-up`);
    sent += w.requests;
    seconds += w.seconds;
  }
}

/**
 * PostgreSQL round trips per request; the goals: one for a show by an owner or a member, and for
 * every list page one for the page and at most one for its count (issue 32).
 */
async function roundTripRows(
  databaseUrl: string,
  env: Record<string, string>,
  world: World,
  section: string,
  groups: Set<string> | null = null,
): Promise<Row[]> {
  const get = (group: string, k: CallerKey, p: string, label: string, list = false) => ({
    group,
    label,
    caller: k,
    path: p,
    init: { headers: world.callers[k].headers },
    list,
  });
  const probes = [
    ...(Object.keys(CALLER_LABELS) as CallerKey[]).map((k) => get('show', k, `/api/v2/projects/${world.showId}`, 'GET /projects/:id')),
    ...(['owner', 'member', 'reader'] as const).map((k) => get('list', k, listPath(SMALL), `project list, ${SMALL} projects`, true)),
    get('list', 'owner', listPath(LARGE), `project list, ${LARGE.toLocaleString('en')} projects`, true),
    get('list', 'member', listPath(LARGE), `project list, ${LARGE.toLocaleString('en')} projects`, true),
    ...(Object.keys(PAGES) as PageKey[]).map((key) => get(key, 'owner', `/api/v2${world.pages[key]}`, PAGES[key].route, true)),
    {
      group: 'agent',
      label: 'POST /api/agent/status',
      caller: undefined,
      path: '/api/agent/status',
      init: { method: 'POST', headers: world.agentHeaders, body: world.heartbeatBody },
      list: false,
    },
  ];
  // `--only`: the probes of those groups.
  const chosen = probes.filter((p) => !groups || groups.has(p.group));
  if (chosen.length === 0) return [];
  const counted = await countRoundTrips(databaseUrl, env, chosen);
  return counted.map((t) => {
    const k = t.caller as CallerKey | undefined;
    const show = t.label === 'GET /projects/:id' && (k === 'owner' || k === 'member');
    const who = k && CALLER_LABELS[k];
    const goals = show
      ? [goal(`show.${k}.trips`, `PostgreSQL: GET /projects/:id as ${who} in 1 round trip`, t.roundTrips, '<=', 1, '1 round trip')]
      : t.list
        ? [
            goal(
              `trips.${t.label}.${k}`,
              `PostgreSQL: ${t.label}, page of 20, as ${who} in ≤ 2 round trips (page + at most one count)`,
              t.roundTrips,
              '<=',
              2,
              '≤ 2 round trips',
              32,
            ),
          ]
        : [];
    return {
      section,
      label: `PostgreSQL round trips per request: ${t.label}${t.list ? ', page of 20' : ''}`,
      caller: who,
      value: `${t.roundTrips} round trips, ${t.statements} statements`,
      goals,
    };
  });
}

/**
 * `--only`: each scenario's median CPU per request and req/s, against its reference: the bare
 * route last before it in its group (the group's first, or a member's own page of the list).
 */
function printGroups(groups: string[][], scenarios: Map<string, Scenario>, samples: Map<string, Sample[]>, peakRss: number | null) {
  const med = (id: string, f: (s: Sample) => number) => median((samples.get(id) ?? []).map(f));
  for (const g of groups) {
    let ref = g[0]!;
    for (const id of g) {
      if (scenarios.get(id)!.target === 'baseline') ref = id;
      const cpu = med(id, totalCpu);
      const rps = med(id, (s) => s.rps);
      const vs = id === ref ? '' : `  CPU ${(cpu / med(ref, totalCpu)).toFixed(2)}×  req/s ${(rps / med(ref, (s) => s.rps)).toFixed(2)}×`;
      console.log(`${id.padEnd(22)} ${cpu.toFixed(0).padStart(7)} µs/req ${Math.round(rps).toString().padStart(7)} req/s${vs}`);
    }
  }
  console.log(`peak RSS ${peakRss ?? '?'} MiB`);
}

/** Rows that are not load runs (the runs scenarios), with their goals, for `--only`. */
function printRows(rows: Row[]) {
  for (const r of rows) {
    const ratio = r.p50X === undefined ? '' : `  ${r.p50X.toFixed(2)}× ${r.vs}`;
    const marks = r.goals.map((g) => `${g.ok ? 'met' : 'MISSED'}: ${g.title}`).join('; ');
    console.log(`${r.label}${r.caller ? ` (${r.caller})` : ''}\n    ${r.value ?? ''}${ratio}${marks ? `\n    ${marks}` : ''}`);
  }
}

const t0 = performance.now();
function log(message: string) {
  process.stderr.write(`bench [${((performance.now() - t0) / 1000).toFixed(1)} s]: ${message}\n`);
}

/**
 * SQLite: a file in the run's directory. PostgreSQL: a fresh database on the server named by
 * HANGAR_BENCH_POSTGRES_URL (default: the local one), dropped afterwards, with a generated key.
 */
async function benchDatabase(
  dataDir: string,
): Promise<{ url: string; env: Record<string, string>; cpuProbe?: CpuProbe; settle: () => Promise<void>; drop: () => Promise<void> }> {
  // SQLite: no ANALYZE, as a production file has none unless someone runs it.
  if (engine === 'sqlite') return { url: `sqlite:${path.join(dataDir, 'hangar.db')}`, env: {}, settle: async () => {}, drop: async () => {} };
  const adminUrl = process.env.HANGAR_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `hangar_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    env: { HANGAR_ENCRYPTION_KEY: randomBytes(32).toString('base64') },
    cpuProbe: {
      // The CPU time of every backend serving this database (the server's pool), by process id.
      async read() {
        const { rows } = await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'", [name]);
        const cpu = new Map<number, number>();
        for (const r of rows) {
          const used = cpuMicros(r.pid);
          if (used !== null) cpu.set(r.pid, used);
        }
        return cpu;
      },
    },
    // What autovacuum would have done by the time a real organization had grown this large:
    // planner statistics and visibility maps, so that no plan changes halfway through the rounds.
    async settle() {
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      await c.query('VACUUM ANALYZE');
      await c.end();
    },
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

await main();
