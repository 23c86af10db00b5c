// Races: concurrent clients create, rename, move and delete projects and workspaces, and create
// and destroy tokens, for a bounded time. Afterwards every invariant holds and nothing got a 5xx.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { suite } from '../helpers/harness.ts';

const SECONDS = Number(process.env.HANGAR_RACE_SECONDS ?? 4);
const CLIENTS = 8;
// Few names, so that creates and renames collide on purpose.
const NAMES = ['alpha', 'beta', 'gamma', 'delta', 'Alpha', 'BETA'];

suite('robustness: concurrent writers', (ctx) => {
  it(`keeps every invariant under ${CLIENTS} clients for ${SECONDS}s`, { timeout: 120_000 }, async () => {
    const org = await ctx.organization();
    const t = org.owner.token;
    const statuses = new Map<string, number>();
    const serverErrors: string[] = [];
    const deletedProjects = new Set<string>();
    const destroyedTokens = new Set<string>();
    const projects: string[] = [org.defaultProjectId];
    const workspaces: string[] = [];
    const tokens: Array<{ id: string; secret: string }> = [];
    const agentTokens: Array<{ id: string; secret: string }> = [];
    const pool = await ctx.post(`/api/v2/organizations/${org.name}/agent-pools`, t, { data: { type: 'agent-pools', attributes: { name: 'race-pool' } } });
    assert.equal(pool.status, 201);
    const pick = <T>(list: T[]): T | undefined => list[Math.floor(Math.random() * list.length)];
    const name = () => `${pick(NAMES)}-${Math.floor(Math.random() * 4)}`;
    // Clients forget what they deleted (others still race on it until they notice).
    const forget = (list: string[], id: string) => {
      const i = list.indexOf(id);
      if (i >= 0) list.splice(i, 1);
    };

    const call = async (label: string, method: string, url: string, body?: unknown) => {
      const res = await ctx.request(method, url, { token: t, body });
      statuses.set(`${label} ${res.status}`, (statuses.get(`${label} ${res.status}`) ?? 0) + 1);
      if (res.status >= 500) serverErrors.push(`${label}: ${res.status} ${res.raw}`);
      return res;
    };

    const actions: Array<() => Promise<unknown>> = [
      async () => {
        const res = await call('create project', 'POST', `/api/v2/organizations/${org.name}/projects`, {
          data: { type: 'projects', attributes: { name: name() } },
        });
        if (res.status === 201) projects.push(res.body.data.id);
      },
      async () => {
        const id = pick(projects);
        if (id) await call('rename project', 'PATCH', `/api/v2/projects/${id}`, { data: { type: 'projects', attributes: { name: name() } } });
      },
      async () => {
        const id = pick(projects);
        if (!id || id === org.defaultProjectId) return;
        const res = await call('delete project', 'DELETE', `/api/v2/projects/${id}`);
        if (res.status === 204) {
          deletedProjects.add(id);
          forget(projects, id);
        }
      },
      async () => {
        const project = pick(projects);
        const res = await call('create workspace', 'POST', `/api/v2/organizations/${org.name}/workspaces`, {
          data: { type: 'workspaces', attributes: { name: name() }, relationships: { project: { data: { type: 'projects', id: project } } } },
        });
        if (res.status === 201) workspaces.push(res.body.data.id);
      },
      async () => {
        const target = pick(projects);
        const ids = [...new Set([pick(workspaces), pick(workspaces)].filter(Boolean))];
        if (target && ids.length) {
          await call('move workspaces', 'POST', `/api/v2/projects/${target}/relationships/workspaces`, { data: ids.map((id) => ({ type: 'workspaces', id })) });
        }
      },
      async () => {
        const id = pick(workspaces);
        const target = pick(projects);
        if (id && target) {
          await call('patch workspace project', 'PATCH', `/api/v2/workspaces/${id}`, {
            data: { type: 'workspaces', attributes: {}, relationships: { project: { data: { type: 'projects', id: target } } } },
          });
        }
      },
      async () => {
        const id = pick(workspaces);
        if (id && (await call('delete workspace', 'DELETE', `/api/v2/workspaces/${id}`)).status === 204) forget(workspaces, id);
      },
      async () => {
        const res = await call('create token', 'POST', `/api/v2/users/${org.owner.id}/authentication-tokens`, {
          data: { type: 'authentication-tokens', attributes: {} },
        });
        if (res.status === 201) tokens.push({ id: res.body.data.id, secret: res.body.data.attributes.token });
      },
      async () => {
        const token = pick(tokens);
        if (!token) return;
        const res = await call('destroy token', 'DELETE', `/api/v2/authentication-tokens/${token.id}`);
        if (res.status === 204) destroyedTokens.add(token.id);
      },
      async () => {
        const res = await call('create agent token', 'POST', `/api/v2/agent-pools/${pool.body.data.id}/authentication-tokens`, {
          data: { type: 'authentication-tokens', attributes: { description: 'race' } },
        });
        if (res.status === 201) agentTokens.push({ id: res.body.data.id, secret: res.body.data.attributes.token });
      },
      async () => {
        const token = pick(agentTokens);
        if (!token) return;
        const res = await call('destroy agent token', 'DELETE', `/api/v2/authentication-tokens/${token.id}`);
        if (res.status === 204) destroyedTokens.add(token.id);
      },
    ];

    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < deadline) await pick(actions)!();
      }),
    );

    assert.deepEqual(serverErrors, [], 'no request may fail with a 5xx');
    const db = ctx.database.db;
    // No workspace in a missing project (the foreign key says so too; this checks the data).
    const orphans = await db.selectFrom('workspaces as w').leftJoin('projects as p', 'p.id', 'w.project_id').select('w.id').where('p.id', 'is', null).execute();
    assert.deepEqual(orphans, []);
    // Every project answered 204 on delete is gone, and took no workspace with it.
    for (const id of deletedProjects) {
      assert.equal(await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst(), undefined);
    }
    // Names unique per organization, ignoring case.
    for (const table of ['projects', 'workspaces'] as const) {
      const dupes = await db
        .selectFrom(table)
        .select([sql<string>`lower(name)`.as('n'), (eb) => eb.fn.countAll<number>().as('c')])
        .groupBy(['organization_id', sql`lower(name)`])
        .having((eb) => eb.fn.countAll(), '>', 1)
        .execute();
      assert.deepEqual(dupes, [], `${table} names are unique`);
    }
    // Counts reported by the API equal the real rows.
    const listed = await ctx.get(`/api/v2/organizations/${org.name}/projects?page[size]=100`, t);
    assert.equal(listed.status, 200);
    for (const p of listed.body.data) {
      const real = await db
        .selectFrom('workspaces')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', p.id)
        .executeTakeFirstOrThrow();
      assert.equal(p.attributes['workspace-count'], Number(real.n), `workspace-count of ${p.id}`);
    }
    const orgRow = await db.selectFrom('organizations').select('id').where('name', '=', org.name).executeTakeFirstOrThrow();
    const projectRows = await db
      .selectFrom('projects')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', orgRow.id)
      .executeTakeFirstOrThrow();
    assert.equal(listed.body.meta.pagination['total-count'], Number(projectRows.n));
    // The gram counters (migration 0014) equal the names left: an owner's q= of one or two
    // characters is answered from them.
    const left = (await db.selectFrom('projects').select('name').where('organization_id', '=', orgRow.id).execute()).map((r) => r.name.toLowerCase());
    const expected = new Map<string, number>();
    for (const name of left) {
      const grams = new Set([...name].flatMap((c, i) => (i + 1 < name.length ? [c, name.slice(i, i + 2)] : [c])));
      for (const g of grams) expected.set(g, (expected.get(g) ?? 0) + 1);
    }
    const counters = await db
      .selectFrom('project_name_grams')
      .select(['gram', 'projects'])
      .where('organization_id', '=', orgRow.id)
      .where('projects', '<>', 0)
      .execute();
    const sorted = (m: Iterable<[string, number]>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(sorted(counters.map((c) => [c.gram, Number(c.projects)])), sorted(expected), 'gram counters');
    for (const q of ['a', 'L', 'ph', '-', '1', 'Ta', 'x']) {
      const res = await ctx.get(`/api/v2/organizations/${org.name}/projects?q=${encodeURIComponent(q)}`, t);
      assert.equal(res.body.meta['status-counts'].matching, left.filter((n) => n.includes(q.toLowerCase())).length, `q=${q}`);
    }
    // A destroyed token authenticates nothing.
    for (const token of tokens.filter((x) => destroyedTokens.has(x.id))) {
      assert.equal((await ctx.get('/api/v2/account/details', token.secret)).status, 401);
    }
    for (const token of agentTokens.filter((x) => destroyedTokens.has(x.id))) {
      const res = await ctx.request('POST', '/api/agent/register', { token: token.secret, body: {}, contentType: 'application/json' });
      assert.equal(res.status, 401);
    }
    // The run really raced: writes of every kind succeeded, and some collided.
    for (const label of ['create project 201', 'create workspace 201', 'move workspaces 204', 'create agent token 201']) {
      assert.ok((statuses.get(label) ?? 0) > 0, `no "${label}" in ${JSON.stringify([...statuses])}`);
    }
  });
});
