// Runs every cell of the access matrix (test/access/matrix.ts): each endpoint as each kind of
// caller, with a valid request, asserting the exact status. Also proves that the matrix covers
// every route the app registers, so a new endpoint without a row fails here.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { suite, type TestContext } from './helpers/harness.ts';
import { CALLERS, MATRIX, OUTSIDE_THE_MATRIX, ROWS, rowKey, type CallerKind, type Row } from './access/matrix.ts';
import { REQUESTS, type CellRequest } from './access/requests.ts';
import { World } from './access/world.ts';

const route = (method: string, path: string) => `${method} ${path}`;

function url(row: Row, req: CellRequest): string {
  const path = row.path.replace(/:([a-z_]+)/g, (_m, name: string) => {
    const value = req.params?.[name];
    if (value === undefined) throw new Error(`${rowKey(row)}: no value for :${name}`);
    return encodeURIComponent(value);
  });
  return req.query ? `${path}?${req.query}` : path;
}

/** One cell: a caller of `kind` sends the row's request; returns the status and, on a miss, why. */
async function runCell(ctx: TestContext, world: World, row: Row, kind: CallerKind) {
  const spec = REQUESTS[rowKey(row)]!;
  const w = spec.isolate ? new World(ctx) : world;
  const token = await w.token(kind);
  const req = await spec.make(w);
  await req.asCaller?.(token);
  const res = await ctx.request(row.method, url(row, req), { token, body: req.body, contentType: req.contentType });
  if (res.status >= 400) {
    // Every refusal is a proper error document carrying the same status.
    assert.equal(res.body?.errors?.[0]?.status, String(res.status), `${rowKey(row)} as ${kind}: not an error document: ${res.raw}`);
  }
  return { status: res.status, raw: res.raw };
}

suite('access matrix', (ctx) => {
  it('has a row for every route the app registers, and no row for a route it does not', () => {
    const outside = new Set(OUTSIDE_THE_MATRIX.map((r) => route(r.method, r.path)));
    const registered = ctx.app.routeTable.map((r) => route(r.method, r.url));
    const documented = new Set(ROWS.map((r) => route(r.method, r.path)));
    assert.deepEqual(
      registered.filter((r) => !documented.has(r) && !outside.has(r)),
      [],
      'routes without a row in test/access/matrix.ts',
    );
    assert.deepEqual(
      [...documented].filter((r) => !registered.includes(r)),
      [],
      'rows for routes the app does not register',
    );
    assert.deepEqual(
      [...outside].filter((r) => !registered.includes(r) || documented.has(r)),
      [],
      'stale or documented allow-list entries',
    );
  });

  it('has exactly one request maker per row, each with a body where the route takes one', async () => {
    const keys = ROWS.map(rowKey);
    assert.equal(new Set(keys).size, keys.length, 'two rows share a route and target');
    assert.deepEqual(
      Object.keys(REQUESTS).filter((k) => !keys.includes(k)),
      [],
      'request makers without a row',
    );
    assert.deepEqual(
      keys.filter((k) => !(k in REQUESTS)),
      [],
      'rows without a request maker',
    );
    const withBody = new Set(ctx.app.routeTable.filter((r) => r.hasBody).map((r) => route(r.method, r.url)));
    const world = new World(ctx);
    for (const row of ROWS) {
      // Someone must succeed on every row, or its request (not permission) is what fails.
      assert.ok(
        Object.values(row.expect).some((s) => s < 300),
        `${rowKey(row)}: no caller succeeds`,
      );
      if (withBody.has(route(row.method, row.path))) {
        assert.ok((await REQUESTS[rowKey(row)]!.make(world)).body !== undefined, `${rowKey(row)}: the route validates a body, none is sent`);
      }
    }
  });

  for (const section of MATRIX) {
    describe(section.title, () => {
      // One world per section; rows that change it work on fresh targets (see requests.ts).
      let world: World;
      before(() => {
        world = new World(ctx);
      });
      for (const row of section.rows) {
        const title = `${rowKey(row)}: ${row.what}`;
        it(title, async () => {
          const actual = {} as Record<CallerKind, number>;
          const misses: string[] = [];
          for (const kind of CALLERS) {
            const { status, raw } = await runCell(ctx, world, row, kind);
            actual[kind] = status;
            if (status !== row.expect[kind]) misses.push(`  ${kind}: expected ${row.expect[kind]}, got ${status} ${raw.slice(0, 300)}`);
          }
          assert.deepEqual(actual, row.expect, `${title}\n${misses.join('\n')}`);
        });
      }
    });
  }
});
