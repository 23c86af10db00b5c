// Everything the scenarios need, made the way users make it: the callers with the `hangar`
// command, the organizations and their contents through the API, and only the bulk of the
// large organizations' projects straight into the table (the API would take minutes for 100,000).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/index.ts';
import { newId } from '../src/ids.ts';
import { hangarCli } from './lib.ts';
import { archive, NO_OP } from './runs.ts';

export const JSONAPI = 'application/vnd.api+json';

/** Organization sizes of the list scenarios, smallest (the reference) first. */
export const SCALE = [100, 1_000, 10_000, 100_000] as const;
export const SMALL = SCALE[0];
export const LARGE = SCALE[SCALE.length - 1]!;
/** `q=` searches: 3+ characters (a few hundred names at 100,000) and 1 character (about 40%). */
export const Q_LONG = '123';
export const Q_SHORT = '7';
/** How many projects of each organization the member's team holds `read` on. */
export const GRANTS = 25;
/** How many teams (besides `owners`, `readers`, `all-readers`), agent tokens, state versions and runs the list pages of 20 pick from. */
const TEAMS = 40;
const TOKENS = 40;
const STATES = 40;
const RUNS = 40;

export type CallerKey = 'admin' | 'owner' | 'member' | 'reader';
/** Who calls. Each is a user with its own API token; `headers` authenticate as it. */
export interface Caller {
  key: CallerKey;
  label: string;
  headers: Record<string, string>;
}
export const CALLER_LABELS: Record<CallerKey, string> = {
  admin: 'site admin',
  owner: 'owner',
  member: 'member, team grant',
  reader: 'member, read-projects',
};

export type Api = ReturnType<typeof client>;

export function client(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': JSONAPI };
  async function request(method: string, p: string, body?: unknown, expect?: number): Promise<string> {
    const res = await fetch(`${baseUrl}/api/v2${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (expect === undefined ? !res.ok : res.status !== expect) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text;
  }
  return {
    headers,
    raw: (p: string) => request('GET', p),
    async get(p: string): Promise<any> {
      return JSON.parse(await request('GET', p));
    },
    async post(p: string, body: unknown, expect?: number): Promise<any> {
      const text = await request('POST', p, body, expect);
      return text ? JSON.parse(text).data : null;
    },
  };
}

/**
 * The callers besides the site admin (whose token `hangar bootstrap` prints), each a real user
 * with an API token of its own, made with the `hangar` command side by side.
 */
export async function createUsers(env: Record<string, string>): Promise<Record<Exclude<CallerKey, 'admin'>, string>> {
  const [owner, member, reader] = await Promise.all(
    (['owner', 'member', 'reader'] as const).map(async (name) => {
      await hangarCli(['user', 'create', USERNAMES[name], '--email', `${name}@bench.test`], env);
      return hangarCli(['token', 'create', USERNAMES[name]], env);
    }),
  );
  return { owner: owner!, member: member!, reader: reader! };
}

const USERNAMES = { owner: 'bench-owner', member: 'bench-member', reader: 'bench-reader' };

/** What the scenarios run against. */
export interface World {
  api: Record<CallerKey, Api>;
  callers: Record<CallerKey, Caller>;
  /** `bench-show` in `bench`: every caller may read it (the member through a team grant). */
  showId: string;
  /** `bench-set` in `bench`, with 200 parameters, 20 of them sensitive. */
  policySetId: string;
  agentPoolId: string;
  agentHeaders: Record<string, string>;
  heartbeatBody: string;
  /** Two projects in `bench`, and 1,000 workspaces in the first, to move back and forth. */
  move: { projects: readonly [string, string]; workspaceIds: string[] };
  /** The list pages of issue 32 besides the projects', each a full page of 20 as the owner sees it: path under /api/v2. */
  pages: Record<PageKey, string>;
}

/**
 * The list pages of issue 32 besides the projects' (each also the name of its scenario group and
 * of its bare route), with what the table calls them. Each is a page of 20 of at least 40.
 */
export const PAGES = {
  workspaces: { route: 'GET /organizations/:org/workspaces', of: '1,002 workspaces' },
  teams: { route: 'GET /organizations/:org/teams', of: `${TEAMS + 3} teams` },
  tokens: { route: 'GET /agent-pools/:id/authentication-tokens', of: `${TOKENS} tokens` },
  states: { route: 'GET /state-versions?filter[workspace][name]=…', of: `${STATES} versions` },
  runlist: { route: 'GET /workspaces/:id/runs', of: `${RUNS} queued runs` },
  params20: { route: 'GET /policy-sets/:id/parameters?page[size]=20', of: '100 parameters, 20 sensitive' },
} as const;
export type PageKey = keyof typeof PAGES;

/**
 * Builds the world: organizations `bench` (one project, parameters, an agent), `bench-writes`
 * (for creates) and `scale-<n>` for each size, all made by the owner, each with a `readers` team
 * holding the member (with `read` on `bench-show` and on GRANTS projects of each scale) and an
 * `all-readers` team (`read-projects`) holding the reader. `settle` runs once the rows are in.
 */
export async function buildWorld(
  baseUrl: string,
  databaseUrl: string,
  tokens: Record<CallerKey, string>,
  settle: () => Promise<void>,
  log: (message: string) => void,
): Promise<World> {
  const keys = Object.keys(CALLER_LABELS) as CallerKey[];
  const api = Object.fromEntries(keys.map((k) => [k, client(baseUrl, tokens[k])])) as Record<CallerKey, Api>;
  const callers = Object.fromEntries(keys.map((k): [CallerKey, Caller] => [k, { key: k, label: CALLER_LABELS[k], headers: api[k].headers }])) as Record<
    CallerKey,
    Caller
  >;
  const owner = api.owner;
  const [bench, , ...scaleOrgs] = await Promise.all(
    ['bench', 'bench-writes', ...SCALE.map((size) => `scale-${size}`)].map((name) => createOrganization(owner, name)),
  );
  const show = await owner.post('/organizations/bench/projects', { data: { type: 'projects', attributes: { name: 'bench-show' } } });
  await grantRead(owner, bench!.readersTeamId, [show.id]);

  // The seeding works on the database directly and the rest through the API. Not side by side on
  // SQLite: seeding holds the write lock most of the time (the project triggers of migration 0012
  // made it slower), and the parameters' WAL checkpoints then waited past the busy timeout.
  const seed = async () => {
    for (const [i, size] of SCALE.entries()) {
      const org = scaleOrgs[i]!;
      await grantRead(owner, org.readersTeamId, await seedProjects(databaseUrl, org.name, size, GRANTS));
      await verifySeed(api, org.name, size, [Q_LONG, Q_SHORT]);
    }
    await settle();
    log('projects seeded');
  };
  const parameters = (async () => {
    const set = await owner.post('/organizations/bench/policy-sets', { data: { type: 'policy-sets', attributes: { name: 'bench-set' } } });
    // A policy set holds at most 100 parameters; every fifth is sensitive.
    for (let i = 0; i < 100; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          owner.post(`/policy-sets/${set.id}/parameters`, {
            data: { type: 'vars', attributes: { key: `k${i + j}`, value: `v${i + j}`, category: 'policy-set', sensitive: (i + j) % 5 === 0 } },
          }),
        ),
      );
    }
    log('parameters made');
    return set.id as string;
  })();
  const agent = createAgent(baseUrl, owner);
  const workspaces = prepareMove(owner).then((m) => (log('workspaces made'), m));
  const lists = listContents(owner).then((l) => (log('teams, agent tokens, state versions, runs made'), l));
  const [policySetId, agentSide, move, listed] = await Promise.all([parameters, agent, workspaces, lists]);
  await seed();
  const page = '?page%5Bsize%5D=20';
  const pages: Record<PageKey, string> = {
    workspaces: `/organizations/bench/workspaces${page}`,
    teams: `/organizations/bench/teams${page}`,
    tokens: `/agent-pools/${listed.poolId}/authentication-tokens${page}`,
    // What go-tfe's StateVersions.List asks for.
    states: `/state-versions?filter%5Bworkspace%5D%5Bname%5D=${listed.statesWorkspace}&filter%5Borganization%5D%5Bname%5D=bench&page%5Bsize%5D=20`,
    runlist: `/workspaces/${listed.runsWorkspaceId}/runs${page}`,
    params20: `/policy-sets/${policySetId}/parameters${page}`,
  };
  return { api, callers, showId: show.id, policySetId, ...agentSide, move, pages };
}

/**
 * In `bench`, what the list pages of issue 32 list: TEAMS teams; a pool of its own (the write
 * scenarios add tokens to the other by the thousand) with TOKENS tokens and no agent; STATES state
 * versions of workspace `bench-states`; RUNS runs of workspace `bench-runs`, in agent execution
 * mode on that pool, so that they stay queued (no agent takes them, the server's runners execute
 * only remote runs).
 */
async function listContents(owner: Api) {
  const inBatches = async (count: number, make: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < count; i += 20) await Promise.all(Array.from({ length: Math.min(20, count - i) }, (_, j) => make(i + j)));
  };
  const teams = inBatches(TEAMS, (i) =>
    owner.post('/organizations/bench/teams', { data: { type: 'teams', attributes: { name: `team-${String(i).padStart(3, '0')}` } } }),
  );
  const pool = await owner.post('/organizations/bench/agent-pools', { data: { type: 'agent-pools', attributes: { name: 'bench-list-pool' } } });
  const tokens = inBatches(TOKENS, (i) =>
    owner.post(`/agent-pools/${pool.id}/authentication-tokens`, { data: { type: 'authentication-tokens', attributes: { description: `token ${i}` } } }),
  );
  const statesWorkspace = 'bench-states';
  const states = (async () => {
    const ws = await owner.post('/organizations/bench/workspaces', { data: { type: 'workspaces', attributes: { name: statesWorkspace } } });
    await owner.post(`/workspaces/${ws.id}/actions/lock`, { data: { type: '' } });
    // One after the other: each serial must follow the one before.
    for (let serial = 1; serial <= STATES; serial++) {
      const state = stateFile(serial);
      await owner.post(`/workspaces/${ws.id}/state-versions`, {
        data: {
          type: 'state-versions',
          attributes: { serial, md5: createHash('md5').update(state).digest('hex'), lineage: LINEAGE, state: state.toString('base64') },
        },
      });
    }
    await owner.post(`/workspaces/${ws.id}/actions/unlock`, undefined);
  })();
  const runs = (async () => {
    const ws = await owner.post('/organizations/bench/workspaces', {
      data: { type: 'workspaces', attributes: { name: 'bench-runs', 'execution-mode': 'agent', 'agent-pool-id': pool.id } },
    });
    const cv = await owner.post(`/workspaces/${ws.id}/configuration-versions`, { data: { type: 'configuration-versions', attributes: {} } });
    const res = await fetch(cv.attributes['upload-url'], { method: 'PUT', body: archive({ 'main.tf': NO_OP }) });
    if (!res.ok) throw new Error(`configuration upload: ${res.status} ${await res.text()}`);
    // The upload is processed when it lands; a run needs it `uploaded`.
    for (let i = 0; (await owner.get(`/configuration-versions/${cv.id}`)).data.attributes.status !== 'uploaded'; i++) {
      if (i === 200) throw new Error('the configuration version was not uploaded in 5 s');
      await new Promise((r) => setTimeout(r, 25));
    }
    const run = { data: { type: 'runs', attributes: {}, relationships: { workspace: { data: { type: 'workspaces', id: ws.id } } } } };
    for (let i = 0; i < RUNS; i++) await owner.post('/runs', run);
    return ws.id as string;
  })();
  const [runsWorkspaceId] = await Promise.all([runs, teams, tokens, states]);
  return { poolId: pool.id as string, statesWorkspace, runsWorkspaceId };
}

export const LINEAGE = '8094ef40-1dbd-95cd-1f60-bb25d84d883b';

/** A state file of Terraform's format 4 with one resource and one output. */
export function stateFile(serial: number): Buffer {
  const doc = {
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage: LINEAGE,
    outputs: { greeting: { value: 'hello', type: 'string' } },
    resources: [
      {
        mode: 'managed',
        type: 'terraform_data',
        name: 'bench',
        provider: 'provider["terraform.io/builtin/terraform"]',
        instances: [{ schema_version: 0, attributes: { id: `bench-${serial}` } }],
      },
    ],
    check_results: null,
  };
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n');
}

/** In `bench`: a pool, an agent token of it, and an agent registered with it; the headers and body its heartbeat sends. */
export async function createAgent(baseUrl: string, owner: Api) {
  const pool = await owner.post('/organizations/bench/agent-pools', { data: { type: 'agent-pools', attributes: { name: 'bench-pool' } } });
  const token = await owner.post(`/agent-pools/${pool.id}/authentication-tokens`, {
    data: { type: 'authentication-tokens', attributes: { description: 'agent' } },
  });
  const agentHeaders = { authorization: `Bearer ${token.attributes.token}`, 'content-type': 'application/json' };
  const res = await fetch(`${baseUrl}/api/agent/register`, { method: 'POST', headers: agentHeaders, body: JSON.stringify({ name: 'bench-agent' }) });
  if (!res.ok) throw new Error(`agent register failed: ${res.status} ${await res.text()}`);
  const heartbeatBody = JSON.stringify({ id: ((await res.json()) as { id: string }).id, status: 'idle' });
  return { agentPoolId: pool.id as string, agentHeaders, heartbeatBody };
}

/** An organization the owner creates, with team `readers` (the member) and `all-readers` (the reader, `read-projects`). */
export async function createOrganization(owner: Api, name: string) {
  await owner.post('/organizations', { data: { type: 'organizations', attributes: { name, email: `${name}@bench.test` } } });
  const team = (teamName: string, access: Record<string, boolean>) =>
    owner.post(`/organizations/${name}/teams`, { data: { type: 'teams', attributes: { name: teamName, 'organization-access': access } } });
  const [readers, allReaders] = await Promise.all([team('readers', {}), team('all-readers', { 'read-projects': true })]);
  // Team membership names users by username, as in TFE.
  await Promise.all([
    owner.post(`/teams/${readers.id}/relationships/users`, { data: [{ type: 'users', id: USERNAMES.member }] }, 204),
    owner.post(`/teams/${allReaders.id}/relationships/users`, { data: [{ type: 'users', id: USERNAMES.reader }] }, 204),
  ]);
  return { name, readersTeamId: readers.id as string };
}

/** `read` on each project for the team, through `POST /team-projects`. */
export async function grantRead(owner: Api, teamId: string, projectIds: readonly string[]) {
  for (let i = 0; i < projectIds.length; i += 25) {
    await Promise.all(
      projectIds.slice(i, i + 25).map((id) =>
        owner.post('/team-projects', {
          data: {
            type: 'team-projects',
            attributes: { access: 'read' },
            relationships: { project: { data: { type: 'projects', id } }, team: { data: { type: 'teams', id: teamId } } },
          },
        }),
      ),
    );
  }
}

async function prepareMove(owner: Api) {
  const [a, b] = await Promise.all(
    ['move-a', 'move-b'].map((name) => owner.post('/organizations/bench/projects', { data: { type: 'projects', attributes: { name } } })),
  );
  const workspaceIds: string[] = [];
  for (let i = 0; i < 1000; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        owner.post('/organizations/bench/workspaces', {
          data: { type: 'workspaces', attributes: { name: `ws-${i + j}` }, relationships: { project: { data: { type: 'projects', id: a.id } } } },
        }),
      ),
    );
    workspaceIds.push(...batch.map((w) => w.id as string));
  }
  return { projects: [a.id as string, b.id as string] as const, workspaceIds };
}

const projectName = (i: number) => `project ${String(i).padStart(6, '0')}`;

/**
 * `count` projects straight into the table (SQLite: 1,000 rows a statement; PostgreSQL: one
 * statement); returns the ids of `pick` of them spread evenly through the default order
 * (creation time, then id).
 */
async function seedProjects(databaseUrl: string, orgName: string, count: number, pick: number): Promise<string[]> {
  const database = openDatabase(databaseUrl);
  // Ids in ascending order: each primary-key insert lands at the end of the index, so 100,000
  // rows take a second, not the minute random inserts into a B-tree outgrowing the cache take.
  const ids = Array.from({ length: count }, () => newId('prj')).sort();
  const every = Math.floor(count / pick);
  const picked = ids.filter((_, i) => i % every === every >> 1).slice(0, pick);
  try {
    const org = await database.db.selectFrom('organizations').select('id').where('name', '=', orgName).executeTakeFirstOrThrow();
    const createdAt = new Date().toISOString();
    const names = ids.map((_, i) => projectName(i));
    if (database.dialect === 'postgres') {
      // One statement, two arrays: a round trip per 1,000 rows would be most of the wait.
      await sql`INSERT INTO projects (id, organization_id, name, description, auto_destroy_activity_duration, is_default, created_at)
        SELECT t.id, ${org.id}, t.name, NULL, NULL, false, ${createdAt} FROM unnest(${ids}::text[], ${names}::text[]) AS t(id, name)`.execute(database.db);
      return picked;
    }
    // The bench's own connection only: 64 MiB of page cache while it writes.
    await sql`PRAGMA cache_size = -65536`.execute(database.db);
    for (let i = 0; i < count; i += 1000) {
      const rows = ids.slice(i, i + 1000).map((id, j) => ({
        id,
        organization_id: org.id,
        name: names[i + j]!,
        description: null,
        auto_destroy_activity_duration: null,
        is_default: false,
        created_at: createdAt,
      }));
      // IMMEDIATE: the write lock from the start. A deferred transaction that read first (the
      // counter the insert triggers keep, migration 0012) fails outright when another
      // connection wrote in between (SQLITE_BUSY_SNAPSHOT), where this one waits its turn.
      await database.db.connection().execute(async (c) => {
        await sql`BEGIN IMMEDIATE`.execute(c);
        try {
          await c.insertInto('projects').values(rows).execute();
          await sql`COMMIT`.execute(c);
        } catch (error) {
          await sql`ROLLBACK`.execute(c);
          throw error;
        }
      });
      // The server's busy handler polls for the lock, sleeping up to 100 ms between tries;
      // leave a gap it is sure to wake up in (the triggers made each batch ~100 ms).
      await new Promise((r) => setTimeout(r, 120));
    }
  } finally {
    await database.close();
  }
  return picked;
}

/**
 * Checks through the API that the seeded organization looks to each caller as it must: rows put
 * straight into the table skip whatever the server keeps beside them (a counter, a search
 * index), and a bench that measured an organization the server does not see would lie.
 */
async function verifySeed(api: Record<CallerKey, Api>, orgName: string, count: number, search: string[]) {
  const total = async (who: Api, query = '') =>
    (await who.get(`/organizations/${orgName}/projects?page%5Bsize%5D=1${query}`)).meta.pagination['total-count'] as number;
  const expect = async (what: string, actual: Promise<number>, wanted: number) => {
    const got = await actual;
    if (got !== wanted)
      throw new Error(`seed check: ${orgName} ${what}: total-count ${got}, expected ${wanted} (does the seed miss something the server keeps?)`);
  };
  // The organization's default project is there too.
  const checks = [
    expect('as owner', total(api.owner), count + 1),
    expect('as member', total(api.member), GRANTS),
    expect('as reader', total(api.reader), count + 1),
  ];
  for (const q of search) {
    let matches = 0;
    for (let i = 0; i < count; i++) if (projectName(i).includes(q)) matches++;
    checks.push(expect(`q=${q} as owner`, total(api.owner, `&q=${q}`), matches));
  }
  await Promise.all(checks);
}
