// `npm run bench:instructions`: what a project show and an agent heartbeat cost in machine
// instructions on the server's main thread, counted by valgrind's callgrind, against the bare
// Fastify references `npm run bench` divides by. Instructions are not time: they leave out what
// the kernel does to wake a sleeping client and what a cache miss costs, so their ratios run below
// the CPU ratios of `npm run bench`, which stay the goals. But they repeat to about 1% whatever
// else the machine is doing, where CPU time moves by 10% and more from minute to minute, so they
// judge a change of a few percent that CPU time cannot (docs/performance.md).
//
// SQLite only: the database's own work is in the server's process there. Nothing is written to
// bench/results/; the figures are printed.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import { hangarCli, median, startBaseline, startHangar, type Launch, type LoadRequest, type Proc } from './lib.ts';
import { HEARTBEAT_SCHEMA } from './scenarios.ts';
import { client, createAgent, createOrganization, createUsers, grantRead, JSONAPI } from './setup.ts';

const execFileAsync = promisify(execFile);
const ROUNDS = 3;
/** Requests sent to a fresh process before counting starts (see `count`). */
const WARMUP = 4_000;
/** Requests counted per scenario and round. */
const COUNTED = 2_000;

interface Scenario {
  label: string;
  target: 'hangar' | 'baseline';
  request: (url: string) => LoadRequest;
  /** The scenario it is divided by. */
  reference?: string;
}

function log(message: string) {
  process.stderr.write(`bench:instructions: ${message}\n`);
}

/** Sends `amount` requests over two connections and fails unless every answer is 2xx. */
async function drive(r: LoadRequest, amount: number): Promise<void> {
  const result = await autocannon({
    url: r.url,
    connections: 2,
    amount,
    headers: r.headers,
    method: r.method ?? 'GET',
    ...(r.body !== undefined ? { body: r.body } : {}),
  });
  if (result.non2xx || result.errors || result.timeouts)
    throw new Error(`${r.method ?? 'GET'} ${r.url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
}

/**
 * Runs `start` under callgrind, counting nothing until told, sends WARMUP of the scenario's
 * requests, then counts the next COUNTED: the instructions per request on the main thread
 * (thread 1: the event loop; the compiler and GC helper threads vary from run to run).
 *
 * Each count takes a fresh process. A process's count per request keeps falling slowly for tens
 * of thousands of requests (the JIT compilers, and the garbage collector's sizing, catch up later
 * under valgrind, which runs one thread at a time), so counts taken one after the other in one
 * process differ by 5% and more; counts taken at the same point in the life of fresh processes
 * mostly agree to under 1%, though now and then a process settles about a fifth cheaper (which
 * code the JIT compilers finished first), hence the median of three. Mixing scenarios in one
 * process also made each the others' code polymorphic. (`--single-threaded` made every count
 * agree, but moved the garbage collector's helper work onto the main thread, which weighs on the
 * bare server's count far more than on Hangar's: not what runs.)
 */
async function count(start: (launch: Launch) => Promise<Proc>, scenario: Scenario): Promise<number> {
  const out = mkdtempSync(path.join(tmpdir(), 'hangar-callgrind-'));
  const wrapper = ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${path.join(out, 'cg')}`];
  const proc = await start({ wrapper });
  const control = (...args: string[]) => execFileAsync('callgrind_control', [...args, String(proc.pid)]);
  try {
    const request = scenario.request(proc.url);
    await drive(request, WARMUP);
    await control('-i', 'on');
    await drive(request, COUNTED);
    await control('-i', 'off');
    // The counts so far, written to cg.1-01 (dump 1, thread 1).
    await control('-d');
    const file = path.join(out, 'cg.1-01');
    const total = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'));
    if (!total) throw new Error(`no totals in ${file}`);
    return Number(total[1]) / COUNTED;
  } finally {
    await proc.stop();
    rmSync(out, { recursive: true, force: true });
  }
}

async function main() {
  try {
    await execFileAsync('valgrind', ['--version']);
  } catch {
    throw new Error("valgrind is not installed: `apt-get install valgrind` (Debian), or your system's package");
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-instructions-'));
  const env = { HANGAR_DATA_DIR: dataDir, HANGAR_DATABASE_URL: `sqlite:${path.join(dataDir, 'hangar.db')}` };
  try {
    log('users, an organization, a project granted to a team, an agent (as `npm run bench` makes them)');
    await hangarCli(['bootstrap'], env);
    const tokens = await createUsers(env);
    const world = await (async () => {
      const server = await startHangar(env);
      try {
        const owner = client(server.url, tokens.owner);
        const { readersTeamId } = await createOrganization(owner, 'bench');
        const project = await owner.post('/organizations/bench/projects', { data: { type: 'projects', attributes: { name: 'bench-show' } } });
        await grantRead(owner, readersTeamId, [project.id]);
        const { agentHeaders, heartbeatBody } = await createAgent(server.url, owner);
        const heartbeat = await fetch(`${server.url}/api/agent/status`, { method: 'POST', headers: agentHeaders, body: heartbeatBody });
        // The bare routes answer what Hangar answers.
        const bodies = {
          show: { method: 'GET', contentType: JSONAPI, body: await owner.raw(`/projects/${project.id}`) },
          status: { method: 'POST', contentType: 'application/json', body: await heartbeat.text(), schema: HEARTBEAT_SCHEMA },
        };
        return { projectId: project.id as string, agentHeaders, heartbeatBody, bodies };
      } finally {
        await server.stop();
      }
    })();
    const bodiesFile = path.join(dataDir, 'baseline.json');
    writeFileSync(bodiesFile, JSON.stringify(world.bodies));

    const show = (token: string) => (url: string) => ({ url: `${url}/api/v2/projects/${world.projectId}`, headers: { authorization: `Bearer ${token}` } });
    const status = (url: string): LoadRequest => ({ url, method: 'POST', headers: world.agentHeaders, body: world.heartbeatBody });
    const scenarios: Record<string, Scenario> = {
      'show.bare': { label: 'bare Fastify, the show from memory', target: 'baseline', request: (url) => ({ url: `${url}/show` }) },
      'show.owner': { label: 'GET /projects/:id, owner', target: 'hangar', request: show(tokens.owner), reference: 'show.bare' },
      'show.member': { label: 'GET /projects/:id, member, team grant', target: 'hangar', request: show(tokens.member), reference: 'show.bare' },
      'agent.bare': { label: 'bare POST, same shape', target: 'baseline', request: (url) => status(`${url}/status`) },
      'agent.heartbeat': { label: 'POST /api/agent/status', target: 'hangar', request: (url) => status(`${url}/api/agent/status`), reference: 'agent.bare' },
    };
    // Rounds outermost: a scenario and its reference are counted a few minutes apart at most.
    const counts = new Map<string, number[]>(Object.keys(scenarios).map((id) => [id, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} of ${ROUNDS}: each scenario in a fresh process, ${COUNTED} requests counted after ${WARMUP}`);
      for (const [id, s] of Object.entries(scenarios)) {
        counts.get(id)!.push(await count((launch) => (s.target === 'hangar' ? startHangar(env, launch) : startBaseline(bodiesFile, launch)), s));
      }
    }

    const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
    const lines = ['| scenario | instructions / request (median) | rounds | ratio to reference |', '|---|---|---|---|'];
    for (const [id, s] of Object.entries(scenarios)) {
      const rounds = counts.get(id)!;
      const mid = median(rounds);
      const ratio = s.reference ? `${(mid / median(counts.get(s.reference)!)).toFixed(2)}× ${s.reference}` : 'reference';
      lines.push(`| ${id}: ${s.label} | ${k(mid)} | ${rounds.map(k).join(', ')} | ${ratio} |`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
