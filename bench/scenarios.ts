// What is measured, and against what: the scenarios, grouped so that each runs in the same round
// as its reference; and the table rows (with the goals of issues 12 and 32) made from the rounds'
// samples. The groups (`npm run bench -- --only <group>,…` runs only those):
//   show        GET /projects/:id as each caller, against a bare route serving the same body
//   params      a policy set's 100 parameters, unpaginated, as admin, owner and member
//   list        the project list (page of 20) as each caller at each organization size, q=, sort=,
//               against bare routes serving the owner's, the member's and the reader's page at 100
//   agent       the agent heartbeat against a bare POST of the same shape, and Hangar's ping
//   write       creating projects and agent tokens, against a bare JSON:API POST
//   workspaces, teams, tokens, states, runlist, params20
//               issue 32's other list pages of 20, as the owner, each against a bare route serving
//               its body (setup.ts PAGES: workspaces, teams, agent tokens, state versions, runs of
//               a workspace, a page of 20 policy set parameters)
//   runs        the runs scenarios of runs.ts (no world is built when they run alone)
import { median, type LoadRequest, type Sample } from './lib.ts';
import { goal, type Engine, type Goal, type Row } from './report.ts';
import { CALLER_LABELS, JSONAPI, LARGE, PAGES, Q_LONG, Q_SHORT, SCALE, SMALL, type Caller, type CallerKey, type PageKey, type World } from './setup.ts';

export type Target = 'hangar' | 'baseline';
export interface Scenario {
  target: Target;
  request: LoadRequest;
}

export const listPath = (size: number, query = '') => `/api/v2/organizations/scale-${size}/projects?page%5Bsize%5D=20${query}`;
const createBody = (name: string) => JSON.stringify({ data: { type: 'projects', attributes: { name } } });

/**
 * The bare baseline's routes (see baseline.ts): for each, the body Hangar answers the request it
 * stands for with, fetched from the running server.
 */
export async function baselineRoutes(world: World, hangarUrl: string) {
  const owner = world.api.owner;
  const heartbeat = await fetch(`${hangarUrl}/api/agent/status`, { method: 'POST', headers: world.agentHeaders, body: world.heartbeatBody });
  const created = await fetch(`${hangarUrl}/api/v2/organizations/bench-writes/projects`, {
    method: 'POST',
    headers: owner.headers,
    body: createBody('body-sample'),
  });
  if (!heartbeat.ok || !created.ok) throw new Error(`baseline bodies: heartbeat ${heartbeat.status}, create ${created.status}`);
  const get = (body: string) => ({ method: 'GET', contentType: JSONAPI, body });
  const pages = Object.fromEntries(
    await Promise.all(Object.entries(world.pages).map(async ([key, p]) => [key, get(await fullPage(key, await owner.raw(p)))] as const)),
  );
  const smallList = listPath(SMALL).slice('/api/v2'.length);
  return {
    ...pages,
    show: get(await owner.raw(`/projects/${world.showId}`)),
    params: get(await owner.raw(`/policy-sets/${world.policySetId}/parameters`)),
    list: get(await owner.raw(smallList)),
    'list-member': get(await world.api.member.raw(smallList)),
    'list-reader': get(await world.api.reader.raw(smallList)),
    status: { method: 'POST', contentType: 'application/json', body: await heartbeat.text(), schema: HEARTBEAT_SCHEMA },
    create: { method: 'POST', status: 201, contentType: JSONAPI, body: await created.text(), schema: CREATE_SCHEMA },
  };
}

/** A list page's body, checked to hold a full page: a short one would flatter the route. */
async function fullPage(key: string, body: string) {
  const n = (JSON.parse(body) as { data: unknown[] }).data.length;
  if (n !== 20) throw new Error(`list page ${key}: ${n} items, not 20`);
  return body;
}

// The bare POST routes validate the same shapes as Hangar's routes for the same requests.
export const HEARTBEAT_SCHEMA = {
  type: 'object',
  required: ['id', 'status'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64 }, status: { enum: ['idle', 'busy', 'exited', 'errored'] } },
};
const CREATE_SCHEMA = {
  type: 'object',
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type', 'attributes'],
      properties: { type: { const: 'projects' }, attributes: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
    },
  },
};

/** Callers of the parameter list and the scale chart: the reader's figures there add nothing. */
const THREE: CallerKey[] = ['admin', 'owner', 'member'];

/**
 * Every scenario by id, and the groups that run back to back in each round, the reference first.
 * The list group puts each caller's list at the smallest and the largest size side by side.
 */
export function defineScenarios(world: World, hangarUrl: string, baselineUrl: string) {
  const hangar = (request: LoadRequest): Scenario => ({ target: 'hangar', request: { ...request, url: hangarUrl + request.url } });
  const bare = (name: string, request: Omit<LoadRequest, 'url'> = {}): Scenario => ({
    target: 'baseline',
    request: { ...request, url: `${baselineUrl}/${name}` },
  });
  const as = (c: Caller, p: string) => hangar({ url: p, headers: c.headers });
  const everyone = Object.values(world.callers);
  const scenarios = new Map<string, Scenario>();
  const groups: string[][] = [];
  const group = (entries: Array<[string, Scenario]>) => {
    for (const [id, s] of entries) scenarios.set(id, s);
    groups.push(entries.map(([id]) => id));
  };

  group([['show.bare', bare('show')], ...everyone.map((c): [string, Scenario] => [`show.${c.key}`, as(c, `/api/v2/projects/${world.showId}`)])]);
  group([
    ['params.bare', bare('params')],
    ...THREE.map((k): [string, Scenario] => [`params.${k}`, as(world.callers[k], `/api/v2/policy-sets/${world.policySetId}/parameters`)]),
  ]);
  const lists: Array<[string, Scenario]> = [['list.bare', bare('list')]];
  for (const c of everyone) {
    // Each member's own page at 100 projects, from memory: the reference of its page at 100.
    if (c.key === 'member' || c.key === 'reader') lists.push([`list.bare-${c.key}`, bare(`list-${c.key}`)]);
    // The reader sees what an owner sees: its two sizes show what its standing costs, no more.
    const sizes = c.key === 'reader' ? [SMALL, LARGE] : [SMALL, LARGE, ...SCALE.slice(1, -1)];
    for (const size of sizes) lists.push([`list.${c.key}.${size}`, as(c, listPath(size))]);
    if (c.key === 'owner' || c.key === 'member') {
      lists.push([`list.${c.key}.q3`, as(c, listPath(LARGE, `&q=${Q_LONG}`))], [`list.${c.key}.q1`, as(c, listPath(LARGE, `&q=${Q_SHORT}`))]);
    }
    if (c.key === 'owner') lists.push(['list.owner.sort', as(c, listPath(LARGE, '&sort=-name'))]);
  }
  group(lists);
  group([
    ['agent.bare', bare('status', { method: 'POST', headers: { 'content-type': 'application/json' }, body: world.heartbeatBody })],
    ['agent.heartbeat', hangar({ url: '/api/agent/status', method: 'POST', headers: world.agentHeaders, body: world.heartbeatBody })],
    ['agent.ping', hangar({ url: '/api/v2/ping' })],
  ]);
  let n = 0;
  const owner = world.api.owner.headers;
  group([
    ['write.bare', bare('create', { method: 'POST', headers: { 'content-type': JSONAPI }, body: createBody('body-sample') })],
    ['write.project', hangar({ url: '/api/v2/organizations/bench-writes/projects', method: 'POST', headers: owner, makeBody: () => createBody(`p-${++n}`) })],
    [
      'write.token',
      hangar({
        url: `/api/v2/agent-pools/${world.agentPoolId}/authentication-tokens`,
        method: 'POST',
        headers: owner,
        body: JSON.stringify({ data: { type: 'authentication-tokens', attributes: { description: 'bench' } } }),
      }),
    ],
  ]);
  for (const key of Object.keys(PAGES) as PageKey[]) {
    group([
      [`${key}.bare`, bare(key)],
      [`${key}.owner`, as(world.callers.owner, `/api/v2${world.pages[key]}`)],
    ]);
  }
  return { scenarios, groups };
}

/**
 * What a request costs in CPU: the server's time, plus on PostgreSQL the database's time serving
 * it, so that a query which moves work into the database does not look cheaper for it.
 */
export const totalCpu = (s: Sample) => s.cpuUs + (s.dbCpuUs ?? 0);

const who = (c: CallerKey) => CALLER_LABELS[c];
const at = (size: number) => `${size.toLocaleString('en')} projects`;

/** The load rows of the table, and the scale chart's points, from each scenario's samples. */
export function tabulate(samples: Map<string, Sample[]>, engine: Engine) {
  const rows: Row[] = [];
  const figure = (
    section: string,
    label: string,
    id: string,
    ref?: { id: string; label: string },
    caller?: CallerKey,
    goals: (r: Row) => Goal[] = () => [],
  ) => {
    const mine = samples.get(id)!;
    const row: Row = {
      section,
      label,
      caller: caller && who(caller),
      cpuUs: median(mine.map((s) => s.cpuUs)),
      rps: median(mine.map((s) => s.rps)),
      p50: median(mine.map((s) => s.p50)),
      p99: median(mine.map((s) => s.p99)),
      goals: [],
      rounds: { cpuUs: mine.map((s) => Math.round(s.cpuUs)), rps: mine.map((s) => s.rps), p50: mine.map((s) => s.p50) },
    };
    if (mine[0]!.dbCpuUs !== undefined) row.dbCpuUs = median(mine.map((s) => s.dbCpuUs!));
    if (ref) {
      // Each round's ratio against the reference measured beside it, then their median.
      const theirs = samples.get(ref.id)!;
      const per = (f: (s: Sample) => number) => median(mine.map((s, i) => f(s) / f(theirs[i]!)));
      Object.assign(row, { vs: ref.label, cpuX: per(totalCpu), rpsX: per((s) => s.rps), p50X: per((s) => s.p50) });
    }
    const errors = mine.reduce((t, s) => t + s.errors, 0);
    const non2xx = mine.reduce((t, s) => t + s.non2xx, 0);
    if (errors || non2xx) row.note = `${errors} errors, ${non2xx} non-2xx`;
    // Figures of failed requests prove nothing.
    row.goals = goals(row).map((g) => (row.note ? { ...g, ok: false } : g));
    rows.push(row);
    return row;
  };
  const sameBody = (id: string) => ({ id, label: 'bare, same body' });

  const SHOW = 'GET /projects/:id';
  figure(SHOW, 'bare Fastify, same body from memory', 'show.bare');
  for (const k of Object.keys(CALLER_LABELS) as CallerKey[]) {
    figure(SHOW, SHOW, `show.${k}`, sameBody('show.bare'), k, (r) => {
      if (k !== 'owner' && k !== 'member') return [];
      const title = `GET /projects/:id as ${who(k)}`;
      return engine === 'sqlite'
        ? [
            goal(`show.${k}.cpu`, `${title}: CPU/req ≤ 2× bare (SQLite)`, r.cpuX, '<=', 2, 'CPU ≤ 2×', 32),
            goal(`show.${k}.rps`, `${title}: req/s ≥ 0.4× bare (SQLite)`, r.rpsX, '>=', 0.4, 'req/s ≥ 0.4×'),
          ]
        : [goal(`show.${k}.rps.pg`, `${title}: req/s ≥ 0.2× bare (PostgreSQL)`, r.rpsX, '>=', 0.2, 'req/s ≥ 0.2×', 32)];
    });
  }

  const PARAMS = 'GET /policy-sets/:id/parameters (100, 20 sensitive)';
  figure(PARAMS, 'bare Fastify, same body from memory', 'params.bare');
  for (const k of THREE) figure(PARAMS, 'GET /policy-sets/:id/parameters', `params.${k}`, sameBody('params.bare'), k);

  /** Issue 32's goals of a list page of 20 against the bare route serving its body. */
  const pageGoals = (key: string, title: string) => (r: Row) =>
    engine === 'sqlite'
      ? [goal(`${key}.cpu`, `${title}: CPU/req ≤ 3× bare (SQLite)`, r.cpuX, '<=', 3, 'CPU ≤ 3×', 32)]
      : [goal(`${key}.rps`, `${title}: req/s ≥ 0.15× bare (PostgreSQL)`, r.rpsX, '>=', 0.15, 'req/s ≥ 0.15×', 32)];

  const LIST = 'GET /organizations/:org/projects, page of 20';
  figure(LIST, `bare Fastify, the owner's page at ${at(SMALL)}`, 'list.bare');
  const callersOfLists = (Object.keys(CALLER_LABELS) as CallerKey[]).filter((k) => samples.has(`list.${k}.${SMALL}`));
  // The members' pages hold other projects than the owner's: each has a bare route of its own.
  const bareList = (k: CallerKey) => (k === 'member' || k === 'reader' ? `list.bare-${k}` : 'list.bare');
  for (const k of ['member', 'reader'] as const)
    if (samples.has(bareList(k))) figure(LIST, `bare Fastify, the page of the ${who(k)} at ${at(SMALL)}`, bareList(k));
  for (const k of callersOfLists) {
    const goals = k === 'admin' ? undefined : pageGoals(`list.${k}.page`, `project list page of 20 at ${at(SMALL)} as ${who(k)}`);
    figure(LIST, `list, ${at(SMALL)}`, `list.${k}.${SMALL}`, sameBody(bareList(k)), k, goals);
  }
  for (const k of callersOfLists) {
    const ref = { id: `list.${k}.${SMALL}`, label: `list, ${at(SMALL)}` };
    for (const size of SCALE.slice(1)) {
      if (!samples.has(`list.${k}.${size}`)) continue;
      figure(LIST, `list, ${at(size)}`, `list.${k}.${size}`, ref, k, (r) =>
        size === LARGE
          ? [goal(`list.${k}.large`, `list at ${at(LARGE)} as ${who(k)}: CPU/req ≤ 1.5× the list at ${SMALL}`, r.cpuX, '<=', 1.5, 'CPU ≤ 1.5×')]
          : [],
      );
    }
    if (samples.has(`list.${k}.q3`)) {
      figure(LIST, `list, ${at(LARGE)}, q=${Q_LONG}`, `list.${k}.q3`, ref, k, (r) => [
        goal(`list.${k}.q3`, `q= (3+ characters) at ${at(LARGE)} as ${who(k)}: CPU/req ≤ 3× the list at ${SMALL}`, r.cpuX, '<=', 3, 'CPU ≤ 3×'),
      ]);
      figure(LIST, `list, ${at(LARGE)}, q=${Q_SHORT}`, `list.${k}.q1`, ref, k, (r) => [
        goal(`list.${k}.q1`, `q= (1–2 characters) at ${at(LARGE)} as ${who(k)}: CPU/req ≤ 10× the list at ${SMALL}`, r.cpuX, '<=', 10, 'CPU ≤ 10×'),
      ]);
    }
    if (samples.has(`list.${k}.sort`)) figure(LIST, `list, ${at(LARGE)}, sort=-name`, `list.${k}.sort`, ref, k);
  }
  const scale = THREE.map((k) => ({
    caller: who(k),
    points: SCALE.map((size) => {
      const s = samples.get(`list.${k}.${size}`)!;
      return { projects: size, cpuUs: median(s.map(totalCpu)), p50: median(s.map((x) => x.p50)) };
    }),
  }));

  for (const key of Object.keys(PAGES) as PageKey[]) {
    if (!samples.has(`${key}.owner`)) continue;
    const { route, of } = PAGES[key];
    const section = `${route}, page of 20 (of ${of})`;
    figure(section, 'bare Fastify, same body from memory', `${key}.bare`);
    figure(section, route, `${key}.owner`, sameBody(`${key}.bare`), 'owner', pageGoals(key, `${route}, page of 20, as owner`));
  }

  const AGENT = 'Agent heartbeat POST /api/agent/status';
  figure(AGENT, 'bare Fastify POST, same JSON body parsed and validated, same answer', 'agent.bare');
  // Issue 12 set it on SQLite; issue 32 on PostgreSQL too.
  const onPostgres = engine === 'postgres';
  figure(AGENT, 'POST /api/agent/status, agent token', 'agent.heartbeat', { id: 'agent.bare', label: 'bare POST, same shape' }, undefined, (r) => [
    goal(
      onPostgres ? 'agent.heartbeat.pg' : 'agent.heartbeat',
      `${onPostgres ? 'PostgreSQL: ' : ''}heartbeat ≥ 0.8× a same-shape unauthenticated POST (requests per CPU-second)`,
      r.cpuX && 1 / r.cpuX,
      '>=',
      0.8,
      '≥ 0.8× by CPU (CPU ≤ 1.25×)',
      onPostgres ? 32 : 12,
    ),
  ]);
  figure(AGENT, 'GET /api/v2/ping, unauthenticated', 'agent.ping');
  figure(AGENT, 'POST /api/agent/status, agent token (same runs)', 'agent.heartbeat', { id: 'agent.ping', label: 'Hangar ping' });

  const WRITES = 'Writes';
  figure(WRITES, 'bare Fastify POST, JSON:API body parsed and validated, 201', 'write.bare');
  figure(WRITES, 'POST /organizations/:org/projects', 'write.project', { id: 'write.bare', label: 'bare POST' }, 'owner');
  figure(WRITES, 'POST /agent-pools/:id/authentication-tokens', 'write.token', { id: 'write.bare', label: 'bare POST' }, 'owner');
  return { rows, scale };
}
