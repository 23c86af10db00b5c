// Authentication and authorization are cached per process (db/changes.ts). A revoked token, a
// removed team membership, a lowered project grant, a removed workspace grant or a deleted policy
// set must take effect on the next request on the instance that made the change, and promptly on
// every other instance sharing the PostgreSQL database (LISTEN/NOTIFY). Two real server processes on one database; each change is made
// through one of them after both have cached the old answer. A SQLite server sees what the
// `hangar` commands write to its file through SQLite's count of other connections' commits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hangar, startServer, type Server } from './helpers/process.ts';
import { scratchPostgres } from './helpers/postgres.ts';

const POSTGRES_URL = process.env.HANGAR_TEST_POSTGRES_URL;

const call = async (server: Server, method: string, url: string, token: string, body?: unknown) => {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : null };
};
const ok = async (p: ReturnType<typeof call>, status: number) => {
  const r = await p;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};
/** Polls until `probe` answers `status`; the change must arrive from another process. */
const eventually = async (probe: () => ReturnType<typeof call>, status: number) => {
  const started = Date.now();
  let last = 0;
  // Generous bound for a shared machine; a notification normally lands within milliseconds, and
  // a SQLite server looks at most a second after its last look.
  while (Date.now() - started < 5_000) {
    last = (await probe()).status;
    if (last === status) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`still ${last}, not ${status}, after 5 s`);
};

describe('caches across two server processes on one PostgreSQL database', { skip: !POSTGRES_URL && 'needs HANGAR_TEST_POSTGRES_URL' }, () => {
  let env: Record<string, string>;
  let dataDir = '';
  let dropDatabase = async () => {};
  let a: Server;
  let b: Server;
  let admin = '';
  let bob = { id: '', username: 'bob', token: '' };
  let teamId = '';
  let projectId = '';

  const members = (username: string) => ({ data: [{ type: 'users', id: username }] });
  const showProject = (server: Server, token = bob.token) => call(server, 'GET', `/api/v2/projects/${projectId}`, token);

  before(async () => {
    const scratch = await scratchPostgres(POSTGRES_URL!, 'hangar_proc');
    dropDatabase = scratch.drop;
    dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-cache-'));
    env = { HANGAR_DATABASE_URL: scratch.url, HANGAR_DATA_DIR: dataDir, HANGAR_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };
    // Migrated first, so neither server's start-up has to (its wait for the log line is bounded).
    assert.equal(hangar(['migrate'], env).status, 0);
    a = await startServer(env);
    b = await startServer(env);
    admin = hangar(['bootstrap'], env).stdout.trim();
    assert.equal(hangar(['user', 'create', 'bob', '--email', 'bob@example.test'], env).status, 0);
    bob.token = hangar(['token', 'create', 'bob'], env).stdout.trim();
    bob.id = (await ok(call(a, 'GET', '/api/v2/account/details', bob.token), 200)).data.id;
    await ok(
      call(a, 'POST', '/api/v2/organizations', admin, { data: { type: 'organizations', attributes: { name: 'cached', email: 'ops@example.test' } } }),
      201,
    );
    teamId = (await ok(call(a, 'POST', '/api/v2/organizations/cached/teams', admin, { data: { type: 'teams', attributes: { name: 'devs' } } }), 200)).data.id; // as go-tfe expects
    projectId = (
      await ok(call(a, 'POST', '/api/v2/organizations/cached/projects', admin, { data: { type: 'projects', attributes: { name: 'shared-project' } } }), 201)
    ).data.id;
  });
  after(async () => {
    await a?.stop('SIGKILL');
    await b?.stop('SIGKILL');
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a removed team membership: at once where removed, promptly on the other instance', async () => {
    await ok(call(a, 'POST', `/api/v2/teams/${teamId}/relationships/users`, admin, members('bob')), 204);
    const grant = await ok(
      call(a, 'POST', '/api/v2/team-projects', admin, {
        data: {
          type: 'team-projects',
          attributes: { access: 'read' },
          relationships: { project: { data: { type: 'projects', id: projectId } }, team: { data: { type: 'teams', id: teamId } } },
        },
      }),
      201,
    );
    // Both instances have now answered (and cached) bob's access.
    await ok(showProject(a), 200);
    await ok(showProject(b), 200);
    await ok(showProject(b), 200);
    await ok(call(b, 'DELETE', `/api/v2/teams/${teamId}/relationships/users`, admin, members('bob')), 204);
    assert.equal((await showProject(b)).status, 404, 'the instance that removed the membership');
    await eventually(() => showProject(a), 404);
    // Added back, and it is seen again, everywhere.
    await ok(call(a, 'POST', `/api/v2/teams/${teamId}/relationships/users`, admin, members('bob')), 204);
    assert.equal((await showProject(a)).status, 200);
    await eventually(() => showProject(b), 200);
    await ok(call(a, 'DELETE', `/api/v2/team-projects/${grant.data.id}`, admin), 204);
  });

  it('a lowered project grant: at once where lowered, promptly on the other instance', async () => {
    const grant = await ok(
      call(a, 'POST', '/api/v2/team-projects', admin, {
        data: {
          type: 'team-projects',
          attributes: { access: 'admin' },
          relationships: { project: { data: { type: 'projects', id: projectId } }, team: { data: { type: 'teams', id: teamId } } },
        },
      }),
      201,
    );
    const rename = (server: Server) =>
      call(server, 'PATCH', `/api/v2/projects/${projectId}`, bob.token, { data: { type: 'projects', attributes: { description: `by bob ${Date.now()}` } } });
    await ok(rename(a), 200);
    await ok(rename(b), 200);
    await ok(showProject(a), 200);
    await ok(call(a, 'PATCH', `/api/v2/team-projects/${grant.data.id}`, admin, { data: { type: 'team-projects', attributes: { access: 'read' } } }), 200);
    assert.equal((await rename(a)).status, 403, 'the instance that lowered the grant');
    await eventually(() => rename(b), 403);
    // Read access stays.
    await ok(showProject(b), 200);
  });

  it('a removed workspace grant: at once where removed, promptly on the other instance', async () => {
    const project = (
      await ok(call(a, 'POST', '/api/v2/organizations/cached/projects', admin, { data: { type: 'projects', attributes: { name: 'workspace-grants' } } }), 201)
    ).data.id;
    const workspace = (
      await ok(
        call(a, 'POST', '/api/v2/organizations/cached/workspaces', admin, {
          data: { type: 'workspaces', attributes: { name: 'granted' }, relationships: { project: { data: { type: 'projects', id: project } } } },
        }),
        201,
      )
    ).data.id;
    const grant = await ok(
      call(a, 'POST', '/api/v2/team-workspaces', admin, {
        data: {
          type: 'team-workspaces',
          attributes: { access: 'read' },
          relationships: { workspace: { data: { type: 'workspaces', id: workspace } }, team: { data: { type: 'teams', id: teamId } } },
        },
      }),
      200,
    );
    const runs = (server: Server) => call(server, 'GET', `/api/v2/workspaces/${workspace}/runs`, bob.token);
    await ok(runs(a), 200);
    await ok(runs(b), 200);
    await ok(runs(b), 200);
    await ok(call(b, 'DELETE', `/api/v2/team-workspaces/${grant.data.id}`, admin), 204);
    assert.equal((await runs(b)).status, 404, 'the instance that removed the grant');
    await eventually(() => runs(a), 404);
  });

  it('a deleted policy set: its parameters at once where deleted, promptly on the other instance', async () => {
    const set = await ok(
      call(a, 'POST', '/api/v2/organizations/cached/policy-sets', admin, {
        data: { type: 'policy-sets', attributes: { name: 'soon-gone', kind: 'sentinel' } },
      }),
      201,
    );
    const parameters = (server: Server) => call(server, 'GET', `/api/v2/policy-sets/${set.data.id}/parameters`, admin);
    await ok(parameters(a), 200);
    await ok(parameters(b), 200);
    await ok(parameters(b), 200);
    await ok(call(a, 'DELETE', `/api/v2/policy-sets/${set.data.id}`, admin), 204);
    assert.equal((await parameters(a)).status, 404, 'the instance that deleted it');
    await eventually(() => parameters(b), 404);
  });

  it('a revoked token: at once where revoked, promptly on the other instance', async () => {
    const created = await ok(
      call(a, 'POST', `/api/v2/users/${bob.id}/authentication-tokens`, bob.token, {
        data: { type: 'authentication-tokens', attributes: { description: 'soon gone' } },
      }),
      201,
    );
    const secret = created.data.attributes.token as string;
    await ok(call(a, 'GET', '/api/v2/account/details', secret), 200);
    await ok(call(b, 'GET', '/api/v2/account/details', secret), 200);
    await ok(call(a, 'DELETE', `/api/v2/authentication-tokens/${created.data.id}`, bob.token), 204);
    assert.equal((await call(a, 'GET', '/api/v2/account/details', secret)).status, 401, 'the instance that revoked it');
    await eventually(() => call(b, 'GET', '/api/v2/account/details', secret), 401);
  });

  it('a token made by the CLI (another process), revoked with itself, is refused on both', async () => {
    const secret = hangar(['token', 'create', 'bob', '--description', 'cli'], env).stdout.trim();
    await ok(call(a, 'GET', '/api/v2/account/details', secret), 200);
    await ok(call(b, 'GET', '/api/v2/account/details', secret), 200);
    const tokens = await ok(call(a, 'GET', `/api/v2/users/${bob.id}/authentication-tokens`, bob.token), 200);
    const id = (tokens.data as Array<{ id: string; attributes: { description: string } }>).find((t) => t.attributes.description === 'cli')!.id;
    await ok(call(b, 'DELETE', `/api/v2/authentication-tokens/${id}`, secret), 204);
    await eventually(() => call(a, 'GET', '/api/v2/account/details', secret), 401);
    assert.equal((await call(b, 'GET', '/api/v2/account/details', secret)).status, 401);
  });
});

describe('a SQLite server and the hangar commands on its file', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-cache-sqlite-'));
  const env = { HANGAR_DATA_DIR: dataDir };
  let server: Server;
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sees a user made site admin by `hangar bootstrap --username` without a restart', async () => {
    assert.equal(hangar(['migrate'], env).status, 0);
    server = await startServer(env);
    const admin = hangar(['bootstrap'], env).stdout.trim();
    await ok(
      call(server, 'POST', '/api/v2/organizations', admin, { data: { type: 'organizations', attributes: { name: 'private', email: 'ops@example.test' } } }),
      201,
    );
    assert.equal(hangar(['user', 'create', 'carol', '--email', 'carol@example.test'], env).status, 0);
    const carol = hangar(['token', 'create', 'carol'], env).stdout.trim();
    // Cached as she is now: not a member, not a site admin.
    await ok(call(server, 'GET', '/api/v2/account/details', carol), 200);
    assert.equal((await call(server, 'GET', '/api/v2/organizations/private', carol)).status, 404);
    assert.equal(hangar(['bootstrap', '--username', 'carol'], env).status, 0);
    await eventually(() => call(server, 'GET', '/api/v2/organizations/private', carol), 200);
  });
});
