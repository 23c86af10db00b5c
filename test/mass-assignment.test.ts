// No request body reaches the database except through the fields a route models. For every
// POST and PATCH route with a body, a valid request is sent once as is (the control) and once
// with every column name of every table added as an attribute (snake_case and kebab-case),
// carrying values that would show if stored: a victim user's id, a far-past timestamp, `true`.
// The junk must change nothing: same status, no 5xx, and the same rows written as the control.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import { suite, type TestContext } from './helpers/harness.ts';
import { CALLERS, ROWS, rowKey, type Row } from './access/matrix.ts';
import { REQUESTS, type CellRequest } from './access/requests.ts';
import { World } from './access/world.ts';

const FAR_PAST = '1970-01-01T00:00:00.000Z';
/** Columns a repeated request may legitimately touch again (a heartbeat, a token's use). */
const TOUCHED = new Set(['updated_at', 'last_used_at', 'last_ping_at']);
/** Columns whose values differ between two creates by nature: ids, unique names, digests, times. */
const generated = (column: string) =>
  column === 'id' || column.endsWith('_id') || column.endsWith('_at') || ['name', 'username', 'email', 'key', 'digest', 'upload_digest'].includes(column);

type DbRow = Record<string, unknown>;
type Snapshot = Map<string, DbRow[]>;
interface Column {
  table: string;
  name: string;
  boolean: boolean;
}

async function ownTables(ctx: TestContext) {
  // Introspection lists every schema on a PostgreSQL server; only this suite's own counts.
  const own = ctx.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(ctx.database.db)).rows[0]!.s : undefined;
  return (await ctx.database.db.introspection.getTables()).filter((t) => (own === undefined || t.schema === own) && !t.name.startsWith('kysely_'));
}

async function snapshot(ctx: TestContext, tables: readonly string[]): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const table of tables) out.set(table, await (ctx.database.db as any).selectFrom(table).selectAll().execute());
  return out;
}

const keyOf = (row: DbRow, omit: ReadonlySet<string>) =>
  JSON.stringify(Object.keys(row).filter((k) => !omit.has(k)).sort().map((k) => [k, row[k]]));

/** A row's identity: its id, or for a join table the ids it joins. */
const identity = (row: DbRow) => ('id' in row ? String(row.id) : keyOf(Object.fromEntries(Object.entries(row).filter(([k]) => k.endsWith('_id'))), new Set()));

/** Rows created, and rows changed or deleted (all columns but TOUCHED compared), between two snapshots. */
function changes(before: Snapshot, after: Snapshot) {
  const added = new Map<string, DbRow[]>();
  const altered = new Map<string, DbRow[]>();
  for (const table of after.keys()) {
    const old = new Map((before.get(table) ?? []).map((r) => [identity(r), r]));
    const now = new Map(after.get(table)!.map((r) => [identity(r), r]));
    const plus = [...now].filter(([id]) => !old.has(id)).map(([, r]) => r);
    const minus = [...old].filter(([id, r]) => !now.has(id) || keyOf(now.get(id)!, TOUCHED) !== keyOf(r, TOUCHED)).map(([, r]) => r);
    if (plus.length) added.set(table, plus);
    if (minus.length) altered.set(table, minus);
  }
  return { added, altered };
}

/** Which members of the body a route's schema models, and where its attributes live. */
function modelled(schema: any): { where: 'top' | 'items' | 'attributes'; keys: Set<string> } {
  const data = schema?.properties?.data;
  if (!data) return { where: 'top', keys: new Set(Object.keys(schema?.properties ?? {})) };
  if (data.type === 'array') return { where: 'items', keys: new Set(Object.keys(data.items?.properties?.attributes?.properties ?? {})) };
  return { where: 'attributes', keys: new Set(Object.keys(data.properties?.attributes?.properties ?? {})) };
}

function junkFor(columns: readonly Column[], modelledKeys: ReadonlySet<string>, victimId: string): Record<string, unknown> {
  const junk: Record<string, unknown> = {};
  for (const c of columns) {
    const value = c.boolean ? true : c.name.endsWith('_at') ? FAR_PAST : victimId;
    for (const key of [c.name, c.name.replaceAll('_', '-')]) if (!modelledKeys.has(key) && !(key in junk)) junk[key] = value;
  }
  return junk;
}

function withJunk(body: any, where: 'top' | 'items' | 'attributes', junk: Record<string, unknown>): unknown {
  if (where === 'top') return { ...junk, ...body };
  if (where === 'items') return { ...body, data: body.data.map((d: any) => ({ ...d, attributes: { ...junk, ...d.attributes } })) };
  return { ...body, data: { ...body.data, attributes: { ...junk, ...body.data.attributes } } };
}

function url(row: Row, req: CellRequest): string {
  const path = row.path.replace(/:([a-z_]+)/g, (_m, name: string) => encodeURIComponent(req.params![name]!));
  return req.query ? `${path}?${req.query}` : path;
}

/** A created row with what legitimately differs between two creates blanked out. */
function normalised(row: DbRow, junkValues: readonly unknown[], where: string): string {
  const out: DbRow = {};
  for (const [k, v] of Object.entries(row)) {
    if (generated(k)) assert.ok(!junkValues.includes(v), `${where}: column ${k} holds the junk value ${String(v)}`);
    out[k] = generated(k) ? '<generated>' : v;
  }
  return keyOf(out, new Set());
}

suite('mass assignment: unmodelled attributes are ignored', (ctx) => {
  let victim: { id: string; token: string };
  let columns: Column[];
  let tables: string[];

  before(async () => {
    victim = await ctx.user({ siteAdmin: true });
    const found = await ownTables(ctx);
    tables = found.map((t) => t.name).sort();
    columns = found.flatMap((t) => t.columns.map((c) => ({ table: t.name, name: c.name, boolean: /^bool/i.test(c.dataType) })));
  });

  it('an ordinary user cannot point their organization at another user and have it deleted', async () => {
    const user = await ctx.user();
    const name = `victim-${Date.now()}`;
    const created = await ctx.post('/api/v2/organizations', user.token, { data: { type: 'organizations', attributes: { name, email: 'o@example.test' } } });
    assert.equal(created.status, 201);
    const patched = await ctx.patch(`/api/v2/organizations/${name}`, user.token, {
      data: { type: 'organizations', attributes: { service_user_id: victim.id } },
    });
    assert.equal(patched.status, 200, patched.raw);
    assert.equal((await ctx.delete(`/api/v2/organizations/${name}`, user.token)).status, 204);
    const still = await ctx.database.db.selectFrom('users').select('id').where('id', '=', victim.id).executeTakeFirst();
    assert.equal(still?.id, victim.id, 'the site admin was deleted along with the organization');
    assert.equal((await ctx.get('/api/v2/account/details', victim.token)).status, 200);
  });

  it('answers attributes TFE clients send but Hangar does not model with 200', async () => {
    const user = await ctx.user();
    const name = `tfe-${Date.now()}`;
    assert.equal((await ctx.post('/api/v2/organizations', user.token, { data: { type: 'organizations', attributes: { name, email: 'o@example.test' } } })).status, 201);
    const res = await ctx.patch(`/api/v2/organizations/${name}`, user.token, {
      data: { type: 'organizations', attributes: { 'default-execution-mode': 'agent', 'session-timeout': 20160, 'allow-force-delete-workspaces': true } },
    });
    assert.equal(res.status, 200, res.raw);
  });

  let world: World;
  before(() => {
    world = new World(ctx);
  });

  for (const row of ROWS.filter((r) => r.method === 'POST' || r.method === 'PATCH')) {
    it(`${rowKey(row)}: every column name as an attribute changes nothing`, async (t) => {
      const route = ctx.app.routeTable.find((r) => r.method === row.method && r.url === row.path)!;
      if (!route.hasBody) return t.skip('no body');
      const kind = CALLERS.find((k) => row.expect[k] < 300)!;
      const spec = REQUESTS[rowKey(row)]!;
      const { where, keys } = modelled(route.body);
      const junk = junkFor(columns, keys, victim.id);
      const junkValues = [victim.id, FAR_PAST];
      const send = async (w: World, req: CellRequest, body: unknown) =>
        ctx.request(row.method, url(row, req), { token: await w.token(kind), body, contentType: req.contentType });
      const prepare = async () => {
        const w = spec.isolate ? new World(ctx) : world;
        await w.token(kind);
        return { w, req: await spec.make(w) };
      };

      // The control: the valid request as the access matrix sends it.
      const first = await prepare();
      const s0 = await snapshot(ctx, tables);
      const control = await send(first.w, first.req, first.req.body);
      assert.ok(control.status < 300, `control request failed: ${control.status} ${control.raw}`);
      const s1 = await snapshot(ctx, tables);
      const controlChanges = changes(s0, s1);

      let junked;
      let after: Snapshot;
      if (controlChanges.added.size === 0) {
        // Changes existing rows: the same request again, now with the junk, must change nothing.
        junked = await send(first.w, first.req, withJunk(first.req.body, where, junk));
        after = await snapshot(ctx, tables);
        const { added, altered } = changes(s1, after);
        assert.deepEqual([...added.keys(), ...altered.keys()], [], `rows changed by the junk attributes: ${JSON.stringify([...added, ...altered])}`);
      } else {
        // Creates rows: a second create with the junk must leave existing rows alone and write
        // rows equal to the control's but for ids, names and times.
        const second = await prepare();
        const s2 = await snapshot(ctx, tables);
        junked = await send(second.w, second.req, withJunk(second.req.body, where, junk));
        after = await snapshot(ctx, tables);
        const { added, altered } = changes(s2, after);
        assert.deepEqual([...altered.keys()], [], `existing rows changed: ${JSON.stringify([...altered])}`);
        const shape = (m: Map<string, DbRow[]>, what: string) =>
          Object.fromEntries([...m].map(([table, rows]) => [table, rows.map((r) => normalised(r, junkValues, `${what} ${table}`)).sort()]));
        assert.deepEqual(shape(added, 'junk request:'), shape(controlChanges.added, 'control:'));
      }
      assert.ok(junked.status < 500, `${junked.status} ${junked.raw}`);
      assert.equal(junked.status, control.status, junked.raw);
      for (const [table, rows] of after) {
        for (const r of rows) {
          for (const [k, v] of Object.entries(r)) if (k.endsWith('_at')) assert.notEqual(v, FAR_PAST, `${table}.${k} took the junk timestamp`);
        }
      }
    });
  }
});
