// Bodies meant to cost the server: megabytes sent to URLs no route serves, and JSON nested far
// deeper than any document, across every route that takes a body, on every database.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Schema } from '../../src/db/schema.ts';
import { MAX_JSON_DEPTH } from '../../src/jsonapi/json-text.ts';
import { dialects, POSTGRES_URL, suite } from '../helpers/harness.ts';
import { hangar, scratchServer } from '../helpers/process.ts';
import { exchange } from '../helpers/raw-http.ts';
import { OUTSIDE_THE_MATRIX } from '../access/matrix.ts';
import { buildWorld } from './world.ts';

const MiB = 1024 * 1024;
const REQUESTS = 200;
const PARALLEL = 20;

for (const dialect of dialects()) {
  describe(`megabyte bodies to URLs no route serves [${dialect}]`, () => {
    const start = scratchServer(dialect, POSTGRES_URL);

    it(`answers ${REQUESTS} of them 404, ${PARALLEL} at a time, unread, while the API keeps serving`, { timeout: 300_000 }, async () => {
      const { server, env } = await start({ HANGAR_LOG_LEVEL: 'warn' });
      const port = Number(new URL(server.url).port);
      const token = hangar(['bootstrap'], env).stdout.trim();
      const samples = fc.sample(
        fc.record({
          method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
          url: fc.constantFrom('/api/v2/nope', '/api/v2/organizations/x/nope', '/api/v2/projects/prj-x/nope', '/api/agent/nope', '/', '/api/v3/anything'),
          withToken: fc.boolean(),
          chunked: fc.boolean(),
          // Whole bodies are read off the wire and dropped; unfinished ones are never waited for.
          complete: fc.boolean(),
        }),
        { numRuns: REQUESTS, seed: 7 },
      );
      const payload = Buffer.alloc(MiB, 0x7b); // "{{{{…": as deep as it gets, had it been parsed
      let next = 0;
      const statuses = new Map<number, number>();
      const worker = async () => {
        while (next < samples.length) {
          const s = samples[next++]!;
          const body = s.complete ? payload : payload.subarray(0, MiB - 1);
          const headers = [
            `${s.method} ${s.url} HTTP/1.1`,
            'Host: localhost',
            'Content-Type: application/vnd.api+json',
            s.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${MiB}`,
            ...(s.withToken ? [`Authorization: Bearer ${token}`] : []),
          ].join('\r\n');
          const framed = s.chunked
            ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(s.complete ? '\r\n0\r\n\r\n' : '')])
            : body;
          const res = await exchange(port, Buffer.concat([Buffer.from(`${headers}\r\n\r\n`), framed]));
          res.socket.destroy();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          assert.equal(res.status, 404, `${s.method} ${s.url}: ${res.body}`);
          assert.equal(JSON.parse(res.body).errors[0].status, '404');
        }
      };
      const load = Promise.all(Array.from({ length: PARALLEL }, worker));
      // Meanwhile the API answers, anonymous and authenticated.
      let served = 0;
      while (next < samples.length) {
        assert.equal((await fetch(`${server.url}/api/v2/ping`)).status, 204);
        assert.equal((await fetch(`${server.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
        served += 1;
      }
      await load;
      assert.ok(served > 0);
      assert.deepEqual([...statuses], [[404, REQUESTS]]);
      assert.equal(server.child.exitCode, null);
    });
  });
}

for (const dialect of dialects()) {
  describe(`megabyte bodies without a token to routes that exist [${dialect}]`, () => {
    const start = scratchServer(dialect, POSTGRES_URL);

    it(`answers ${REQUESTS} of them 401 without waiting for the body, ${PARALLEL} at a time, while the API keeps serving`, { timeout: 300_000 }, async () => {
      const { server, env } = await start({ HANGAR_LOG_LEVEL: 'warn' });
      const port = Number(new URL(server.url).port);
      const token = hangar(['bootstrap'], env).stdout.trim();
      const samples = fc.sample(
        fc.record({
          route: fc.constantFrom(
            ['POST', '/api/v2/organizations'],
            ['PATCH', '/api/v2/organizations/acme'],
            ['POST', '/api/v2/organizations/acme/projects'],
            ['PATCH', '/api/v2/projects/prj-0000000000000000'],
            ['POST', '/api/v2/policy-sets/polset-0000000000000000/parameters'],
            ['DELETE', '/api/v2/teams/team-0000000000000000/relationships/users'],
            ['POST', '/api/agent/register'],
            ['POST', '/api/agent/status'],
          ),
          chunked: fc.boolean(),
          complete: fc.boolean(),
          // An unknown token is refused like none.
          bogusToken: fc.boolean(),
        }),
        { numRuns: REQUESTS, seed: 11 },
      );
      const payload = Buffer.alloc(MiB - 1, 0x7b);
      let next = 0;
      const worker = async () => {
        while (next < samples.length) {
          const s = samples[next++]!;
          const [method, url] = s.route;
          const body = s.complete ? payload : payload.subarray(0, MiB / 2);
          const headers = [
            `${method} ${url} HTTP/1.1`,
            'Host: localhost',
            `Content-Type: ${url.startsWith('/api/agent/') ? 'application/json' : 'application/vnd.api+json'}`,
            s.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${payload.length}`,
            ...(s.bogusToken ? ['Authorization: Bearer AAAAAAAAAAAAAA.atlasv1.bogus'] : []),
          ].join('\r\n');
          const framed = s.chunked
            ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from(s.complete ? '\r\n0\r\n\r\n' : '')])
            : body;
          const res = await exchange(port, Buffer.concat([Buffer.from(`${headers}\r\n\r\n`), framed]));
          res.socket.destroy();
          assert.equal(res.status, 401, `${method} ${url}: ${res.body}`);
          assert.equal(JSON.parse(res.body).errors[0].status, '401');
        }
      };
      const load = Promise.all(Array.from({ length: PARALLEL }, worker));
      let served = 0;
      while (next < samples.length) {
        assert.equal((await fetch(`${server.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
        served += 1;
      }
      await load;
      assert.ok(served > 0);
      assert.equal(server.child.exitCode, null);
    });
  });
}

/** The browser's sign-in and sign-out (/app/session): no token, by design. */
const BROWSER_ROUTES = new Set(OUTSIDE_THE_MATRIX.filter((r) => r.path.startsWith('/app/')).map((r) => r.path));

/** `depth` levels of arrays inside an otherwise ordinary document. */
const deepDocument = (depth: number) => `{"data":{"type":"x","attributes":{"name":"deep","deep":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;

suite('robustness: over-deep JSON on every route that takes a body', (ctx) => {
  it('answers every one 400, the same on every database, and changes nothing', { timeout: 300_000 }, async () => {
    const world = await buildWorld(ctx);
    const routes = ctx.app.routeTable.filter((r) => r.hasBody);
    assert.ok(routes.length > 10, 'found the routes with bodies');
    const tables: Array<keyof Schema> = [
      'organizations',
      'teams',
      'team_memberships',
      'auth_tokens',
      'projects',
      'workspaces',
      'team_projects',
      'policy_sets',
      'policy_set_parameters',
      'agent_pools',
      'agents',
    ];
    const counts = () =>
      Promise.all(tables.map(async (t) => (await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(ctx.database.db)).rows[0]!.n));
    const before = await counts();
    for (const route of routes) {
      const url = route.url.replace(/:([a-z_]+)/g, (_m, name: string) => world.params[name]?.own ?? 'unknown-0000000000000000');
      const agent = url.startsWith('/api/agent/');
      if (BROWSER_ROUTES.has(route.url)) {
        // The sign-in form takes form fields only: JSON, however deep, is refused unread.
        const res = await ctx.request(route.method, url, { rawBody: deepDocument(500_000), contentType: 'application/vnd.api+json' });
        assert.equal(res.status, 415, `${route.method} ${url}: ${res.raw.slice(0, 300)}`);
        continue;
      }
      for (const depth of [MAX_JSON_DEPTH + 1, 20_000, 500_000]) {
        const res = await ctx.request(route.method, url, {
          token: agent ? world.agentToken : world.ownerToken,
          rawBody: agent ? `{"name":${deepDocument(depth)}}` : deepDocument(depth),
          contentType: agent ? 'application/json' : 'application/vnd.api+json',
        });
        assert.equal(res.status, 400, `${route.method} ${url} at ${depth} levels: ${res.raw.slice(0, 300)}`);
        assert.match(res.body.errors[0].detail, /deeper than 64 levels/);
      }
    }
    assert.deepEqual(await counts(), before);
  });

  /** Authenticated routes that take raw bytes (`application/octet-stream`), not JSON. */
  const RAW_BODIES = new Set(['/api/v2/policies/:policy_id/upload']);

  /** Token-less upload URLs (state versions, configuration versions): the URL is the permission. */
  const UPLOAD_URLS = new Set(OUTSIDE_THE_MATRIX.filter((r) => r.method === 'PUT').map((r) => r.path));

  it('answers 401 to an anonymous caller and 400 on routes that take no body (DELETE), deleting nothing', { timeout: 300_000 }, async () => {
    const world = await buildWorld(ctx);
    const routes = ctx.app.routeTable.filter((r) => r.method !== 'GET' && r.method !== 'HEAD');
    const bodiless = routes.filter((r) => !r.hasBody);
    assert.ok(
      bodiless.some((r) => r.method === 'DELETE'),
      'found DELETE routes without a body schema',
    );
    const body = deepDocument(20_000);
    const answers: string[] = [];
    for (const route of routes) {
      const url = route.url.replace(/:([a-z_]+)/g, (_m, name: string) => world.params[name]?.own ?? 'unknown-0000000000000000');
      const agent = url.startsWith('/api/agent/');
      const contentType = agent ? 'application/json' : 'application/vnd.api+json';
      const anonymous = await ctx.request(route.method, url, { token: null, rawBody: body, contentType });
      if (BROWSER_ROUTES.has(route.url)) {
        // Anonymous by design (signing in and out), but a JSON body is still refused, unread.
        if (anonymous.status !== (route.method === 'POST' ? 415 : 400)) answers.push(`anonymous ${route.method} ${url}: ${anonymous.status}`);
        continue;
      }
      if (UPLOAD_URLS.has(route.url)) {
        // The URL is the credential, not a token: an unknown one is refused (404, before its body
        // is read), and its body is bytes that are never parsed, whoever sends them.
        if (anonymous.status !== 404) answers.push(`anonymous ${route.method} ${url}: ${anonymous.status}`);
        continue;
      }
      // No token: refused before the body is read, whatever its depth.
      if (anonymous.status !== 401) answers.push(`anonymous ${route.method} ${url}: ${anonymous.status}`);
      if (route.hasBody) continue;
      // A route without a body schema parses a body that comes anyway: refused, and the DELETE not done.
      const owner = await ctx.request(route.method, url, { token: world.ownerToken, rawBody: body, contentType });
      // Routes whose body is raw bytes (a policy's source) refuse a JSON document unread.
      if (RAW_BODIES.has(route.url)) {
        if (owner.status !== 415) answers.push(`owner ${route.method} ${url}: ${owner.status} ${owner.raw.slice(0, 200)}`);
        continue;
      }
      if (owner.status !== 400) answers.push(`owner ${route.method} ${url}: ${owner.status} ${owner.raw.slice(0, 200)}`);
    }
    assert.deepEqual(answers, []);
    for (const route of bodiless.filter((r) => r.method === 'DELETE' && r.url.startsWith('/api/v2/'))) {
      const url = route.url.replace(/:([a-z_]+)/g, (_m, name: string) => world.params[name]?.own ?? 'unknown-0000000000000000');
      // The organization-token slot answers 404 once empty; every other thing must still be there.
      if (url.endsWith('/authentication-token')) continue;
      // TFE's older /vars/:id has no GET: the variable is looked at through its workspace; a
      // site-admin route (the owner is no site admin) through the organization's own route.
      const legacyVariable = /^\/api\/v2\/vars\/([^/]+)$/.exec(url);
      const adminThing = /^\/api\/v2\/admin\/(workspaces|organizations)\/([^/]+)$/.exec(url);
      const seenAt = legacyVariable
        ? `/api/v2/workspaces/${world.params.workspace_id!.own}/vars/${legacyVariable[1]}`
        : adminThing
          ? `/api/v2/${adminThing[1]}/${adminThing[2]}`
          : url;
      const still = await ctx.get(seenAt, world.ownerToken);
      assert.equal(still.status, 200, `${url} is gone after a refused DELETE: ${still.raw.slice(0, 200)}`);
    }
  });
});
