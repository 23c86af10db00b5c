// The API description (GET /api/v2/openapi.json, /docs) and the response schemas behind it.
//
// Response schemas describe every answer, and other work keeps adding attributes, so two things
// are checked on real responses of every endpoint (one request per access-matrix row, as a
// caller who succeeds, in a world holding one of every resource):
//  - serialization is lossless: the body is exactly JSON.stringify of what the route returned
//    (a serializer compiled from the schemas would coerce a null into "" or 0, or drop a member);
//  - every member of the answer is declared in the route's schema: a missing attribute or
//    relationship fails here, by name (the open schemas still send it meanwhile).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv, type ErrorObject as AjvError, type ValidateFunction } from 'ajv';
import { suite, type TestContext } from './helpers/harness.ts';
import { CALLERS, OUTSIDE_THE_MATRIX, ROWS, rowKey, type CallerKind, type Row } from './access/matrix.ts';
import { REQUESTS, taggedWorkspace as taggedWorkspaceOf, type CellRequest } from './access/requests.ts';
import { World } from './access/world.ts';
import { sharedSchemas } from '../src/jsonapi/schemas.ts';

const DOCS = '/docs';

function url(row: Row, req: CellRequest, extraQuery?: string): string {
  const path = row.path.replace(/:([a-z_]+)/g, (_m, name: string) => encodeURIComponent(req.params![name]!));
  const query = [req.query, extraQuery].filter(Boolean).join('&');
  return query ? `${path}?${query}` : path;
}

/** A copy of `schema` in which every object that names its members allows no others. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = closed(v);
  if ('properties' in out) out.additionalProperties = false;
  return out;
}

/** `4xx` and `5xx` stand for every status of their class, as in Fastify. */
function schemaFor(response: Record<string, unknown> | undefined, status: number): unknown {
  return response?.[String(status)] ?? response?.[`${String(status)[0]}xx`];
}

const describeError = (e: AjvError) =>
  e.keyword === 'additionalProperties'
    ? `${e.instancePath}/${String(e.params.additionalProperty)} is not in the response schema`
    : `${e.instancePath || '/'} ${e.message}`;

/** The caller a row is checked as: the owner where the owner succeeds, else the first who does. */
function succeeding(row: Row): CallerKind {
  if (row.expect.owner < 300) return 'owner';
  return CALLERS.find((c) => row.expect[c] < 300)!;
}

/** `make` once the world's workspace and project have tags. */
const withTags = (make: (w: World) => Promise<CellRequest>) => async (w: World) => {
  await taggedWorkspaceOf(w);
  return make(w);
};

/** Requests beyond the matrix's own, for the shapes only a parameter brings out. */
const VARIANTS: Array<{ route: string; query: string; make?: (w: World) => Promise<CellRequest> }> = [
  { route: 'GET /api/v2/organizations/:organization_name/teams', query: 'include=users' },
  // A team with a member to include.
  { route: 'GET /api/v2/teams/:team_id', query: 'include=users', make: async (w) => ({ params: { team_id: await w.ownersTeam() } }) },
  { route: 'GET /api/v2/users/:user_id/authentication-tokens', query: 'page[size]=1' },
  { route: 'GET /api/v2/policy-sets/:policy_set_id/parameters', query: 'page[size]=1' },
  // Tags in effect, with an inherited one, in `included`.
  {
    route: 'GET /api/v2/workspaces/:workspace_id',
    query: 'include=effective_tag_bindings',
    make: async (w) => ({ params: { workspace_id: await taggedWorkspaceOf(w) } }),
  },
  {
    route: 'GET /api/v2/organizations/:organization_name/workspaces',
    query: 'include=effective_tag_bindings',
    make: withTags(async (w) => ({ params: { organization_name: (await w.org()).name } })),
  },
  {
    route: 'GET /api/v2/projects/:project_id',
    query: 'include=effective_tag_bindings',
    make: withTags(async (w) => ({ params: { project_id: await w.project() } })),
  },
  {
    route: 'GET /api/v2/organizations/:organization_name/projects',
    query: 'include=effective_tag_bindings',
    make: withTags(async (w) => ({ params: { organization_name: (await w.org()).name } })),
  },
];

/** Lists that may answer empty for the caller they are checked as; every other list must hold an item. */
const MAY_BE_EMPTY = new Set<string>([]);

suite('OpenAPI document', (ctx) => {
  // The last payload a route returned, before serialization (requests here run one at a time).
  let last: { payload: unknown } | undefined;
  ctx.inspectPayload = (_request, payload) => {
    last = { payload };
  };

  let doc: any;
  before(async () => {
    const res = await ctx.get('/api/v2/openapi.json');
    assert.equal(res.status, 200, res.raw);
    doc = res.body;
  });

  it('is served without a token, as JSON, and passes a real OpenAPI 3.1 validator', async () => {
    const res = await ctx.get('/api/v2/openapi.json');
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.deepEqual(result.errors ?? [], [], 'the document is not valid OpenAPI 3.1');
    assert.equal(result.valid, true);
    // Checked against the 3.1 schema, not an older one.
    assert.equal(validator.version, '3.1');
  });

  it('describes every route the app registers: summary, tags, security, a success response and the error document', () => {
    const hidden = (u: string) => u === DOCS || u.startsWith(`${DOCS}/`);
    const routes = ctx.app.routeTable.filter((r) => !hidden(r.url));
    assert.ok(routes.length > 60, 'found the routes');
    const problems: string[] = [];
    for (const r of routes) {
      const path = r.url.replace(/:([a-z_]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      const name = `${r.method} ${r.url}`;
      if (!op) {
        problems.push(`${name}: not in the document`);
        continue;
      }
      if (!op.summary) problems.push(`${name}: no summary`);
      if (!op.tags?.length) problems.push(`${name}: no tags`);
      if (!Array.isArray(op.security ?? doc.security)) problems.push(`${name}: no security requirement`);
      const codes = Object.keys(op.responses ?? {});
      if (!codes.some((c) => /^2\d\d$/.test(c))) problems.push(`${name}: no success response`);
      for (const errorClass of ['4XX', '5XX']) {
        if (op.responses?.[errorClass]?.content === undefined) problems.push(`${name}: no ${errorClass} error document`);
      }
      // The same schemas serialize the answers: every route declares them, not only the document.
      if (!r.response) problems.push(`${name}: no response schema on the route`);
    }
    assert.deepEqual(problems, []);
    // Nothing but the reference page itself is left out of the document.
    const documented = Object.values(doc.paths).reduce<number>((n, p) => n + Object.keys(p as object).length, 0);
    assert.equal(documented, routes.length);
  });

  it('needs a token everywhere under /api/v2 but for ping and the document itself', () => {
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const security = op.security ?? doc.security;
        const isPublic = Array.isArray(security) && security.length === 0;
        const shouldBe = !path.startsWith('/api/') || path === '/api/v2/ping' || path === '/api/v2/openapi.json';
        assert.equal(isPublic, shouldBe, `${method.toUpperCase()} ${path}: public is ${isPublic}`);
        if (path.startsWith('/api/agent/')) assert.deepEqual(security, [{ agentToken: [] }]);
      }
    }
  });

  it('serves the reference page and its assets without a token, outside the rate limit of tokens', async () => {
    const page = await ctx.get(`${DOCS}/`);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const assets = [...page.raw.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 3, `found the page's assets in ${page.raw}`);
    for (const asset of assets) {
      const res = await ctx.get(`${DOCS}/${asset}`);
      assert.equal(res.status, 200, `${asset}: ${res.status}`);
    }
    // The document the page reads is the one served under /api/v2.
    const json = await ctx.get(`${DOCS}/json`);
    assert.deepEqual(json.body, doc);
  });

  describe('every endpoint answers exactly what its response schema says', () => {
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    // The resources and the error document, which routes refer to by $ref.
    for (const schema of sharedSchemas()) ajv.addSchema(closed(schema) as object);
    const compiled = new Map<unknown, ValidateFunction>();
    const validator = (schema: unknown) => {
      if (!compiled.has(schema)) compiled.set(schema, ajv.compile(closed(schema) as object));
      return compiled.get(schema)!;
    };

    /** Problems with one response: not lossless, or members the schema does not declare. */
    async function check(ctx: TestContext, name: string, method: string, target: string, token: string | null, req: CellRequest) {
      last = undefined;
      await req.asCaller?.(token);
      const res = await ctx.request(method, target, { token, body: req.body, contentType: req.contentType });
      const problems: string[] = [];
      const route = ctx.app.routeTable.find((r) => r.method === method && r.url === name.split(' ')[1]);
      if (res.status === 204) return { res, problems };
      const schema = schemaFor(route?.response as Record<string, unknown>, res.status);
      if (!schema) return { res, problems: [`${name} ${res.status}: no response schema for this status`] };
      const payload = (last as { payload: unknown } | undefined)?.payload;
      // The agent endpoints, and a page of state versions, send their documents as ready text,
      // which the hook does not see (Fastify serializes only objects): their answers are checked
      // as sent. Other text and bytes (the OpenAPI document, state files) are not the documents
      // checked here.
      const readyText = name.split(' ')[1]!.startsWith('/api/agent/') || String(res.headers['content-type']).startsWith('application/vnd.api+json');
      const jsonText = payload === undefined && readyText && res.raw !== '';
      if (!jsonText && (payload === undefined || typeof payload === 'string' || Buffer.isBuffer(payload))) return { res, problems };
      const sent = jsonText ? JSON.parse(res.raw) : JSON.parse(JSON.stringify(payload));
      try {
        assert.deepEqual(JSON.parse(res.raw), sent);
      } catch {
        problems.push(
          `${name} ${res.status}: the serialized body differs from what the route returned (a type in the schema is wrong)\n${res.raw.slice(0, 600)}\n${JSON.stringify(sent).slice(0, 600)}`,
        );
      }
      const validate = validator(schema);
      if (!validate(sent)) problems.push(...validate.errors!.map((e) => `${name} ${res.status}: ${describeError(e)}`));
      return { res, problems };
    }

    let world: World;
    before(async () => {
      world = new World(ctx);
      // One of everything, so that every list has an item to check.
      await world.agent();
      await world.parameter();
      await world.policy();
      await world.teamAccess();
      await world.workspace();
      await world.userToken();
      await world.linkWorkspaces(await world.policySet(), 'workspaces', [(await world.workspace()).id]);
    });

    for (const row of ROWS) {
      it(rowKey(row), async () => {
        const w = REQUESTS[rowKey(row)]!.isolate ? new World(ctx) : world;
        const kind = succeeding(row);
        const req = await REQUESTS[rowKey(row)]!.make(w);
        const problems: string[] = [];
        const token = await w.token(kind);
        // Run before the URL is made: it may name what it prepares (an invitation of the caller).
        await req.asCaller?.(token);
        const ok = await check(ctx, rowKey(row), row.method, url(row, req), token, { ...req, asCaller: undefined });
        assert.ok(ok.res.status < 300, `${rowKey(row)} as ${kind}: ${ok.res.status} ${ok.res.raw}`);
        problems.push(...ok.problems);
        if (Array.isArray(ok.res.body?.data) && !MAY_BE_EMPTY.has(rowKey(row))) {
          assert.ok(ok.res.body.data.length > 0, `${rowKey(row)}: an empty list checks no resource; give the world one`);
        }
        // An error answer of the same route goes through its error schema.
        const kindThatFails = row.expect.anonymous >= 400 ? 'anonymous' : null;
        if (kindThatFails) {
          const again = await REQUESTS[rowKey(row)]!.make(w);
          await again.asCaller?.(null);
          const failing = await check(ctx, rowKey(row), row.method, url(row, again), null, { ...req, asCaller: undefined });
          assert.ok(failing.res.status >= 400);
          problems.push(...failing.problems);
        }
        assert.deepEqual(problems, []);
      });
    }

    for (const variant of VARIANTS) {
      it(`${variant.route}?${variant.query}`, async () => {
        const row = ROWS.find((r) => `${r.method} ${r.path}` === variant.route)!;
        const req = await (variant.make ?? REQUESTS[rowKey(row)]!.make)(world);
        const { res, problems } = await check(ctx, rowKey(row), row.method, url(row, req, variant.query), await world.token('owner'), req);
        assert.equal(res.status, 200, res.raw);
        assert.ok(res.body.included?.length || res.body.meta?.pagination, `${variant.query} changed nothing in ${res.raw.slice(0, 300)}`);
        assert.deepEqual(problems, []);
      });
    }

    it('an invalid body (422, with source.pointer) and a bad query parameter (400, with source.parameter)', async () => {
      const org = await world.org();
      const bad = await check(
        ctx,
        'POST /api/v2/organizations/:organization_name/projects',
        'POST',
        `/api/v2/organizations/${org.name}/projects`,
        org.owner.token,
        {
          body: { data: { type: 'projects', attributes: { name: 5 } } },
        },
      );
      assert.equal(bad.res.status, 422);
      assert.equal(bad.res.body.errors[0].source.pointer, '/data/attributes/name');
      const query = await check(
        ctx,
        'GET /api/v2/organizations/:organization_name/projects',
        'GET',
        `/api/v2/organizations/${org.name}/projects?page[size]=x`,
        org.owner.token,
        {},
      );
      assert.equal(query.res.status, 400);
      assert.ok(query.res.body.errors[0].source.parameter);
      assert.deepEqual([...bad.problems, ...query.problems], []);
    });

    it('fails, naming the member, when a schema lacks an attribute the serializer sends', () => {
      // The check itself must be able to fail: a project schema without `name`.
      const project = structuredClone(sharedSchemas().find((s) => (s as { $id?: string }).$id === 'Project')) as any;
      delete project.properties.attributes.properties.name;
      project.properties.attributes.required = project.properties.attributes.required.filter((k: string) => k !== 'name');
      const validate = ajv.compile(closed({ type: 'object', properties: { data: { ...project, $id: undefined } } }) as object);
      const attributes = { ...Object.fromEntries(project.properties.attributes.required.map((k: string) => [k, null])), name: 'x' };
      assert.equal(validate({ data: { id: 'prj-1', type: 'projects', attributes, relationships: {}, links: { self: '/x' } } }), false);
      assert.ok(
        validate.errors!.map(describeError).some((e) => e === '/data/attributes/name is not in the response schema'),
        JSON.stringify(validate.errors),
      );
    });
  });

  it('leaves out of the matrix and the document only the reference page', () => {
    const outside = OUTSIDE_THE_MATRIX.filter((r) => !r.path.startsWith(DOCS)).map((r) => r.path);
    // The document spells path parameters `{name}`.
    for (const path of outside) assert.ok(doc.paths[path.replace(/:([a-z_]+)/g, '{$1}')], `${path} is served but not described`);
  });
});

suite(
  'the reference page under rate limits (HANGAR_RATE_LIMIT=4)',
  (ctx) => {
    it('loads whole within one anonymous budget: its static files are not charged, the page and the document are', async () => {
      const page = await ctx.get(`${DOCS}/`);
      const assets = [...page.raw.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]!);
      const statuses = [page.status];
      for (const asset of assets) statuses.push((await ctx.get(`${DOCS}/${asset}`)).status);
      statuses.push((await ctx.get(`${DOCS}/json`)).status);
      // More requests than the budget holds, all answered: only three of them were charged.
      assert.ok(statuses.length > 4, `${statuses.length} requests`);
      assert.deepEqual(
        statuses.filter((s) => s !== 200),
        [],
      );
    });

    it('charges the document to the anonymous budget, like ping, and refuses with a JSON:API 429 past it', async () => {
      const statuses: number[] = [];
      let refusal: Awaited<ReturnType<TestContext['get']>> | undefined;
      for (let i = 0; i < 12 && !refusal; i++) {
        const res = await ctx.get('/api/v2/openapi.json');
        statuses.push(res.status);
        if (res.status === 429) refusal = res;
      }
      assert.ok(refusal, `never refused: ${statuses.join(' ')}`);
      assert.equal(refusal.body.errors[0].status, '429');
      assert.ok(refusal.headers['retry-after']);
    });
  },
  { HANGAR_RATE_LIMIT: '4' },
);

suite(
  'the OpenAPI document with metrics on the API port (HANGAR_METRICS_TOKEN)',
  (ctx) => {
    it('describes GET /metrics as Prometheus text behind the metrics token', async () => {
      const doc = (await ctx.get('/api/v2/openapi.json')).body;
      const op = doc.paths['/metrics']?.get;
      assert.ok(op, 'GET /metrics is not in the document');
      assert.deepEqual(op.security, [{ metricsToken: [] }]);
      assert.ok(op.responses['200'].content['text/plain'], JSON.stringify(op.responses));
      assert.ok(doc.components.securitySchemes.metricsToken);
    });
  },
  { HANGAR_METRICS_TOKEN: 'a-metrics-token-of-some-length' },
);
