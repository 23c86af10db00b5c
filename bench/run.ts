// `npm run bench [-- --quick]`: runs the real server, seeds it, drives load with autocannon and
// prints every figure next to a baseline measured in the same run. Results: bench/results/.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/index.ts';
import { newId } from '../src/ids.ts';
import { hangarCli, load, medianMs, ratio, startBaseline, startHangar, type Load, type Proc } from './lib.ts';
import { scaleChart } from './chart.ts';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 1.5 : 5;
const SCALE = [100, 1_000, 10_000, 100_000];
const RESULTS = path.resolve(import.meta.dirname, 'results');

interface Row {
  scenario: string;
  rps?: number;
  p50?: number;
  p99?: number;
  /** Against the baseline's requests/s (or the named reference, for time ratios). */
  ratio: number;
  note?: string;
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-bench-'));
  const { databaseUrl, dropDatabase } = await benchDatabase(dataDir);
  const env = { HANGAR_DATA_DIR: dataDir, HANGAR_DATABASE_URL: databaseUrl };
  hangarCli(['migrate'], env);
  const token = hangarCli(['bootstrap'], env);
  let server: Proc | undefined;
  let baseline: Proc | undefined;
  const rows: Row[] = [];
  const scale: Array<{ projects: number; p50: number; p99: number; rps: number }> = [];
  let peakRss: number | null = null;
  try {
    server = await startHangar(env);
    const api = client(server.url, token);

    const org = await api.createOrganization('bench');
    const project = await api.post(`/organizations/${org}/projects`, { data: { type: 'projects', attributes: { name: 'bench-show' } } });
    const projectBody = await api.raw(`/projects/${project.id}`);
    baseline = await startBaseline(projectBody);
    const base = await load({ url: `${baseline.url}/baseline`, seconds: SECONDS });
    rows.push({ scenario: 'baseline: bare Fastify, same body from memory', ...base, ratio: 1 });
    const vs = (scenario: string, r: Load, note?: string) => rows.push({ scenario, ...r, ratio: ratio(r.rps, base.rps), note: note ?? errorsNote(r) });

    // 1. One project, authenticated.
    vs('GET /projects/:id', await load({ url: `${server.url}/api/v2/projects/${project.id}`, headers: api.headers, seconds: SECONDS }));

    // 2. A page of 20 from organizations of growing size; 7. peak memory while at it.
    for (const size of SCALE) {
      const name = `scale-${size}`;
      await api.createOrganization(name);
      await seedProjects(databaseUrl, name, size);
      const url = `${server.url}/api/v2/organizations/${name}/projects?page%5Bsize%5D=20`;
      const plain = await load({ url, headers: api.headers, seconds: SECONDS });
      scale.push({ projects: size, p50: plain.p50, p99: plain.p99, rps: plain.rps });
      vs(`GET projects list, page of 20, ${size.toLocaleString('en')} projects`, plain);
      if (size === 100 || size === 100_000) {
        vs(`  … with q=7, ${size.toLocaleString('en')} projects`, await load({ url: `${url}&q=7`, headers: api.headers, seconds: SECONDS }));
        vs(`  … with sort=-name, ${size.toLocaleString('en')} projects`, await load({ url: `${url}&sort=-name`, headers: api.headers, seconds: SECONDS }));
      }
    }
    peakRss = server.peakRssMiB();
    const small = scale[0]!;
    const large = scale[scale.length - 1]!;
    rows.push({ scenario: 'scale figure: p50 at 100,000 projects / p50 at 100', ratio: ratio(large.p50 || 1, small.p50 || 1) });

    // 3. Creating projects.
    let n = 0;
    vs(
      'POST /organizations/:org/projects',
      await load({
        url: `${server.url}/api/v2/organizations/${org}/projects`,
        method: 'POST',
        headers: api.headers,
        body: () => JSON.stringify({ data: { type: 'projects', attributes: { name: `p-${process.pid}-${++n}` } } }),
        seconds: SECONDS,
      }),
    );

    // 4. Moving 1 workspace vs 1,000 in one request.
    const [a, b] = await Promise.all([
      api.post(`/organizations/${org}/projects`, { data: { type: 'projects', attributes: { name: 'move-a' } } }),
      api.post(`/organizations/${org}/projects`, { data: { type: 'projects', attributes: { name: 'move-b' } } }),
    ]);
    const workspaces: string[] = [];
    for (let i = 0; i < 1000; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          api.post(`/organizations/${org}/workspaces`, {
            data: { type: 'workspaces', attributes: { name: `ws-${i + j}` }, relationships: { project: { data: { type: 'projects', id: a.id } } } },
          }),
        ),
      );
      workspaces.push(...batch.map((w) => w.id));
    }
    let flip = false;
    const move = (ids: string[]) => async () => {
      flip = !flip;
      await api.post(`/projects/${flip ? b.id : a.id}/relationships/workspaces`, { data: ids.map((id) => ({ type: 'workspaces', id })) }, 204);
    };
    const runs = quick ? 5 : 15;
    const one = await medianMs(runs, move(workspaces.slice(0, 1)));
    if (flip) await move(workspaces.slice(0, 1))();
    const thousand = await medianMs(runs, move(workspaces));
    rows.push({ scenario: 'move 1 workspace (median ms)', p50: one, ratio: 1 });
    rows.push({ scenario: 'move 1,000 workspaces in one request (median ms; ratio vs 1)', p50: thousand, ratio: ratio(thousand, one) });

    // 5. Policy set parameters: 200, 20 of them sensitive.
    const set = await api.post(`/organizations/${org}/policy-sets`, { data: { type: 'policy-sets', attributes: { name: 'bench-set' } } });
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          api.post(`/policy-sets/${set.id}/parameters`, {
            data: { type: 'vars', attributes: { key: `k${i + j}`, value: `v${i + j}`, category: 'policy-set', sensitive: (i + j) % 10 === 0 } },
          }),
        ),
      );
    }
    vs('GET /policy-sets/:id/parameters (200, 20 sensitive)', await load({ url: `${server.url}/api/v2/policy-sets/${set.id}/parameters`, headers: api.headers, seconds: SECONDS }));

    // 6. Agent tokens: creating them, and agents authenticating with them.
    const pool = await api.post(`/organizations/${org}/agent-pools`, { data: { type: 'agent-pools', attributes: { name: 'bench-pool' } } });
    vs(
      'POST /agent-pools/:id/authentication-tokens',
      await load({
        url: `${server.url}/api/v2/agent-pools/${pool.id}/authentication-tokens`,
        method: 'POST',
        headers: api.headers,
        body: () => JSON.stringify({ data: { type: 'authentication-tokens', attributes: { description: 'bench' } } }),
        seconds: SECONDS,
      }),
    );
    const agentToken = (
      await api.post(`/agent-pools/${pool.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: 'agent' } } })
    ).attributes.token as string;
    const agentHeaders = { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' };
    const reg = await fetch(`${server.url}/api/agent/register`, { method: 'POST', headers: agentHeaders, body: JSON.stringify({ name: 'bench-agent' }) });
    if (!reg.ok) throw new Error(`agent register failed: ${reg.status} ${await reg.text()}`);
    const agentId = ((await reg.json()) as { id: string }).id;
    const unauth = await load({ url: `${server.url}/api/v2/ping`, seconds: SECONDS });
    vs('GET /api/v2/ping (unauthenticated)', unauth);
    const beats = await load({
      url: `${server.url}/api/agent/status`,
      method: 'POST',
      headers: agentHeaders,
      body: () => JSON.stringify({ id: agentId, status: 'idle' }),
      seconds: SECONDS,
    });
    vs('POST /api/agent/status with an agent token', beats);
    rows.push({ scenario: 'auth overhead: heartbeat rps / unauthenticated rps', ratio: ratio(beats.rps, unauth.rps) });
  } finally {
    await server?.stop();
    await baseline?.stop();
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  }
  report(rows, scale, peakRss, databaseUrl.startsWith('sqlite') ? 'sqlite' : 'postgres');
}

function errorsNote(r: Load): string | undefined {
  return r.errors || r.non2xx ? `${r.errors} errors, ${r.non2xx} non-2xx` : undefined;
}

function client(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
  async function request(method: string, p: string, body?: unknown, expect = method === 'POST' ? 201 : 200) {
    const res = await fetch(`${url}/api/v2${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== expect && !(expect === 201 && res.status === 200)) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text;
  }
  return {
    headers,
    raw: (p: string) => request('GET', p),
    async post(p: string, body: unknown, expect?: number) {
      const text = await request('POST', p, body, expect);
      return text ? JSON.parse(text).data : null;
    },
    async createOrganization(name: string) {
      await request('POST', '/organizations', { data: { type: 'organizations', attributes: { name, email: `${name}@bench.test` } } });
      return name;
    },
  };
}

/** Bulk rows straight into the projects table: the API would take minutes for 100,000. */
async function seedProjects(databaseUrl: string, orgName: string, count: number) {
  const database = openDatabase(databaseUrl);
  try {
    const org = await database.db.selectFrom('organizations').select('id').where('name', '=', orgName).executeTakeFirstOrThrow();
    const createdAt = new Date().toISOString();
    for (let i = 0; i < count; i += 1000) {
      const rows = Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({
        id: newId('prj'),
        organization_id: org.id,
        name: `project ${String(i + j).padStart(6, '0')}`,
        description: null,
        auto_destroy_activity_duration: null,
        is_default: false,
        created_at: createdAt,
      }));
      await database.transaction((trx) => trx.insertInto('projects').values(rows).execute());
    }
  } finally {
    await database.close();
  }
}

async function benchDatabase(dataDir: string): Promise<{ databaseUrl: string; dropDatabase: () => Promise<void> }> {
  const pgUrl = process.env.HANGAR_BENCH_POSTGRES_URL;
  if (!pgUrl) return { databaseUrl: `sqlite:${path.join(dataDir, 'hangar.db')}`, dropDatabase: async () => {} };
  const schema = `hangar_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  process.env.HANGAR_ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64');
  return {
    databaseUrl: url.toString(),
    dropDatabase: async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

function report(rows: Row[], scale: Array<{ projects: number; p50: number; p99: number; rps: number }>, peakRss: number | null, database: string) {
  const machine = { cpus: cpus().length, node: process.version, database, quick, date: new Date().toISOString() };
  const fmt = (v: number | undefined) => (v === undefined ? '' : String(v));
  const lines = [
    `Hangar benchmark: ${machine.cpus} CPUs, Node ${machine.node}, ${database}${quick ? ', quick run' : ''}, ${machine.date}`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | ratio | note |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.scenario} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.ratio} | ${r.note ?? ''} |`),
    '',
    `Peak resident memory of the server after the 100,000-project scenarios: ${peakRss ?? 'unknown'} MiB.`,
    '',
    'Ratios: requests/s against the baseline (a bare Fastify server answering the same body from memory,',
    'measured in the same run), except where the scenario names another reference.',
  ];
  const markdown = lines.join('\n') + '\n';
  console.log(markdown);
  writeFileSync(path.join(RESULTS, 'latest.md'), markdown);
  writeFileSync(path.join(RESULTS, 'latest.json'), JSON.stringify({ machine, rows, scale, peakRssMiB: peakRss }, null, 2) + '\n');
  writeFileSync(path.join(RESULTS, 'scale.svg'), scaleChart(scale));
}

await main();
