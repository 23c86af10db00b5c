// `npm run bench:profile [-- --path /api/v2/... --as owner|member|reader --seconds 5 --keep]`: where a
// request's CPU goes. Starts the server with V8's sampling profiler on a small world (one
// organization of 100 projects, 25 of them granted to the member's team; 25 workspaces, teams,
// agent tokens of pool `{pool}` and parameters of policy set `{set}`; 25 state versions of
// workspace `states` (`{states-workspace}` its id) and 25 queued runs of workspace `{runs-workspace}`,
// in agent mode on `{pool}`, which has no agent; which --path may name), sends one request
// over and over, and prints the server's self time by kind (SQLite, JSON, the socket, Fastify,
// Kysely, validation, garbage collection) and by Hangar file, as shares of the busy time.
// Nothing is written to bench/results/: it is for finding what to change, the load bench judges.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { hangarCli, startBaseline, startHangar } from './lib.ts';
import { createHash } from 'node:crypto';
import { archive, NO_OP } from './runs.ts';
import { client, createOrganization, createUsers, grantRead, JSONAPI, LINEAGE, stateFile, type CallerKey } from './setup.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const who = arg('as', 'owner') as CallerKey;
const seconds = Number(arg('seconds', '5'));

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

/** Where a frame belongs, for the first table. */
function kind(frame: Node['callFrame']): string {
  const { url, functionName: f } = frame;
  if (f === '(idle)' || f === '(program)' || f === '(garbage collector)') return f;
  if (url.includes('node:sqlite') || (/^(all|get|run|iterate|prepare|exec)$/.test(f) && url === '')) return 'SQLite (native)';
  if (f === 'stringify' || f === 'parse') return `JSON.${f}`;
  if (
    url.startsWith('node:net') ||
    url.startsWith('node:internal/stream') ||
    url.startsWith('node:_http') ||
    f === 'writev' ||
    f === 'writeUtf8String' ||
    f === 'writeBuffer'
  )
    return 'socket and http (Node)';
  if (url.includes('/node_modules/kysely/')) return 'Kysely';
  if (url.includes('/node_modules/fastify/') || url.includes('/node_modules/find-my-way/') || url.includes('/node_modules/light-my-request/')) return 'Fastify';
  if (url.includes('/node_modules/ajv') || url.includes('fast-json-stringify') || url.includes('fast-uri')) return 'validation and serialization';
  if (url.includes('/node_modules/')) return `package ${url.split('/node_modules/').pop()!.split('/')[0]}`;
  if (url.includes('/src/')) return 'Hangar';
  if (url.startsWith('node:')) return 'Node (other)';
  return url === '' ? `native: ${f || '(anonymous)'}` : 'other';
}

/** Drives `url` with `headers`: a warm-up, then `seconds` of measured load; the requests of the latter. */
async function drive(url: string, headers: Record<string, string> = {}): Promise<number> {
  await autocannon({ url, headers, connections: 2, duration: 2 });
  const r = await autocannon({ url, headers, connections: 2, duration: seconds });
  if (r.non2xx || r.errors) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.total;
}

const PROFILE_FLAGS = (dir: string) => ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=50'];

/**
 * Self time per request by kind and by function, from the profile in `dir` (one process's):
 * only the samples of the measured load, which ended just before the process was stopped and
 * so ends the profile; start-up, the world and the warm-up come before it.
 */
function analyze(dir: string, requests: number) {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; endTime: number };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  let t = profile.endTime;
  const from = profile.endTime - (seconds + 0.2) * 1e6;
  const hits = new Map<number, number>();
  for (let i = profile.samples.length - 1; i >= 0 && t >= from; i--) {
    const dt = profile.timeDeltas[i]!;
    hits.set(profile.samples[i]!, (hits.get(profile.samples[i]!) ?? 0) + dt);
    t -= dt;
  }
  const byKind = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of hits) {
    const n = nodes.get(id)!;
    const k = kind(n.callFrame);
    if (k === '(idle)') continue;
    byKind.set(k, (byKind.get(k) ?? 0) + us / requests);
    busy += us / requests;
    const where = n.callFrame.url.replace(/^.*\/(src|node_modules)\//, '$1/');
    const name = `${n.callFrame.functionName || '(anonymous)'} ${where}:${n.callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us / requests);
  }
  return { busy, byKind, byFunction };
}

async function main() {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-profile-'));
  const profDir = path.join(dataDir, 'prof');
  const bareDir = path.join(dataDir, 'prof-bare');
  const env = { HANGAR_DATA_DIR: dataDir, HANGAR_DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}`, HANGAR_RUNNER_CONCURRENCY: '0' };
  const admin = await hangarCli(['bootstrap'], env);
  const tokens = { admin, ...(await createUsers(env)) };
  let requests = 0;
  let bareRequests = 0;
  const bodies = path.join(dataDir, 'bare.json');
  const server = await startHangar(env, { nodeFlags: PROFILE_FLAGS(profDir) });
  try {
    const owner = client(server.url, tokens.owner);
    const org = await createOrganization(owner, 'profile');
    const ids: string[] = [];
    for (let i = 0; i < 100; i += 20) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          owner.post('/organizations/profile/projects', { data: { type: 'projects', attributes: { name: `project ${i + j}` } } }),
        ),
      );
      ids.push(...made.map((p) => p.id as string));
    }
    await grantRead(
      owner,
      org.readersTeamId,
      ids.filter((_, i) => i % 4 === 0),
    );
    // A page of each other list too: workspaces, teams, an agent pool's tokens, a policy set's
    // parameters (ids printed, for --path).
    const many = (n: number, make: (i: number) => Promise<unknown>) => Promise.all(Array.from({ length: n }, (_, i) => make(i)));
    const post = (p: string, type: string, attributes: object) => owner.post(p, { data: { type, attributes } });
    await many(25, (i) => post('/organizations/profile/workspaces', 'workspaces', { name: `workspace-${i}` }));
    await many(25, (i) => post('/organizations/profile/teams', 'teams', { name: `team-${i}` }));
    const pool = await post('/organizations/profile/agent-pools', 'agent-pools', { name: 'pool' });
    await many(25, (i) => post(`/agent-pools/${pool.id}/authentication-tokens`, 'authentication-tokens', { description: `token ${i}` }));
    const set = await post('/organizations/profile/policy-sets', 'policy-sets', { name: 'set' });
    await many(25, (i) => post(`/policy-sets/${set.id}/parameters`, 'vars', { key: `k${i}`, value: `v${i}`, category: 'policy-set', sensitive: i % 5 === 0 }));
    // 25 state versions, one after the other (each serial follows the one before), under the lock.
    const states = await post('/organizations/profile/workspaces', 'workspaces', { name: 'states' });
    await owner.post(`/workspaces/${states.id}/actions/lock`, { data: { type: '' } });
    for (let serial = 1; serial <= 25; serial++) {
      const state = stateFile(serial);
      const md5 = createHash('md5').update(state).digest('hex');
      await post(`/workspaces/${states.id}/state-versions`, 'state-versions', { serial, md5, lineage: LINEAGE, state: state.toString('base64') });
    }
    await owner.post(`/workspaces/${states.id}/actions/unlock`, undefined);
    // 25 runs that stay queued: agent mode on a pool no agent serves.
    const runs = await post('/organizations/profile/workspaces', 'workspaces', { name: 'runs', 'execution-mode': 'agent', 'agent-pool-id': pool.id });
    const cv = await post(`/workspaces/${runs.id}/configuration-versions`, 'configuration-versions', {});
    const uploaded = await fetch(cv.attributes['upload-url'], { method: 'PUT', body: archive({ 'main.tf': NO_OP }) });
    if (!uploaded.ok) throw new Error(`configuration upload: ${uploaded.status} ${await uploaded.text()}`);
    for (let i = 0; (await owner.get(`/configuration-versions/${cv.id}`)).data.attributes.status !== 'uploaded'; i++) {
      if (i === 200) throw new Error('the configuration version was not uploaded in 5 s');
      await new Promise((r) => setTimeout(r, 25));
    }
    const run = { data: { type: 'runs', attributes: {}, relationships: { workspace: { data: { type: 'workspaces', id: runs.id } } } } };
    for (let i = 0; i < 25; i++) await owner.post('/runs', run);
    process.stderr.write(
      `organization profile: agent pool ${pool.id}, policy set ${set.id}, workspace states ${states.id} (${'{states-workspace}'}), workspace runs ${runs.id} (${'{runs-workspace}'})\n`,
    );
    const url =
      server.url +
      arg('path', '/api/v2/organizations/profile/projects?page%5Bsize%5D=20')
        .replace('{pool}', pool.id)
        .replace('{set}', set.id)
        .replace('{states-workspace}', states.id)
        .replace('{runs-workspace}', runs.id)
        .replace('{project}', ids[0]!);
    const headers = client(server.url, tokens[who]).headers;
    const check = await fetch(url, { headers });
    if (!check.ok) throw new Error(`${url}: ${check.status} ${await check.text()}`);
    // The bare route answers the same body from memory, profiled the same way.
    writeFileSync(bodies, JSON.stringify({ page: { method: 'GET', contentType: JSONAPI, body: await check.text() } }));
    requests = await drive(url, headers);
  } finally {
    // Stopped at once: its profile ends with the measured load.
    await server.stop();
  }
  const baseline = await startBaseline(bodies, { nodeFlags: PROFILE_FLAGS(bareDir) });
  try {
    bareRequests = await drive(`${baseline.url}/page`);
  } finally {
    await baseline.stop();
  }
  const hangar = analyze(profDir, requests);
  const bare = analyze(bareDir, bareRequests);
  if (process.argv.includes('--keep')) console.log(`kept ${dataDir} (the database, and the profiles for Chrome's DevTools)`);
  else rmSync(dataDir, { recursive: true, force: true });
  const us = (n = 0) => n.toFixed(1).padStart(7);
  console.log(
    `${requests} requests to Hangar, ${bareRequests} to the bare route; main thread busy ${hangar.busy.toFixed(0)} µs a request (bare: ${bare.busy.toFixed(0)} µs)\n`,
  );
  console.log('self time by kind, µs a request:  Hangar     bare');
  for (const [k, n] of [...hangar.byKind].sort((a, b) => b[1] - a[1])) console.log(`${k.padEnd(32)} ${us(n)}  ${us(bare.byKind.get(k))}`);
  console.log('\ntop functions by self time, µs a request: Hangar     bare');
  for (const [f, n] of [...hangar.byFunction].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${us(n)}  ${us(bare.byFunction.get(f))}  ${f}`);
}

await main();
