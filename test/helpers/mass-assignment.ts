// No request body reaches the database except through the fields a route models. For every
// POST and PATCH route with a body, a valid request is sent once as is (the control) and once
// with every column name of every table added (snake_case and kebab-case), carrying values that
// would show if stored. The junk must change nothing: same status, no 5xx, and the same rows
// written as the control. The main suite (test/mass-assignment.test.ts) sends the junk as
// attributes, as the first caller allowed; the robustness suite sends it everywhere a body has
// room for it, with values of every JSON type, as every caller allowed.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { sql } from 'kysely';
import type { TestContext } from './harness.ts';
import { CALLERS, ROWS, rowKey, type CallerKind, type Row } from '../access/matrix.ts';
import { REQUESTS, type CellRequest } from '../access/requests.ts';
import { World } from '../access/world.ts';

const FAR_PAST = '1970-01-01T00:00:00.000Z';
/** Columns a repeated request may legitimately touch again (a heartbeat, a token's use, a variable's version). */
const TOUCHED = new Set(['updated_at', 'last_used_at', 'last_ping_at', 'heartbeat_at', 'version_id']);
/** Columns whose values differ between two creates by nature: ids, unique names, digests, times. */
const generated = (column: string) =>
  column === 'id' ||
  column.endsWith('_id') ||
  column.endsWith('_at') ||
  // status_timestamps: a JSON object of times; a blob's owner: the id of the row it belongs to;
  // resource_instances: each entry's times and the id of the state version that wrote it.
  ['name', 'username', 'email', 'key', 'digest', 'seq', 'status_timestamps', 'owner', 'resource_instances'].includes(column);

type DbRow = Record<string, unknown>;
type Snapshot = Map<string, DbRow[]>;
interface Column {
  table: string;
  name: string;
  boolean: boolean;
}

/**
 * What the junk values are. `telling`: a victim user's id, a far-past timestamp, `true`, each
 * where a column of that kind would take it. `confused`: values of the other JSON types (null,
 * a number, an object and an array holding the victim's id), for code that trusts a type.
 */
export type JunkValues = 'telling' | 'confused';
/**
 * Where the junk goes. `attributes`: beside the modelled attributes (or at the top of a plain
 * JSON body). `data`: beside `type`, `id` and `attributes` in `data` (or each item of it).
 * `relationships`: a relationship per column, naming the victim. `document`: beside `data`.
 */
export type JunkPosition = 'attributes' | 'data' | 'relationships' | 'document';

export interface MassAssignmentOptions {
  /** `first`: the first caller the matrix allows; `every`: each caller it allows, in turn. */
  callers: 'first' | 'every';
  values: readonly JunkValues[];
  positions: readonly JunkPosition[];
}

async function ownTables(ctx: TestContext) {
  // Introspection lists every schema on a PostgreSQL server; only this suite's own counts.
  const own = ctx.dialect === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(ctx.database.db)).rows[0]!.s : undefined;
  return (await ctx.database.db.introspection.getTables()).filter(
    (t) => (own === undefined || t.schema === own) && !t.name.startsWith('kysely_') && !DERIVED.test(t.name),
  );
}

/**
 * Tables kept by triggers from `projects` alone, so the projects rows they follow are compared
 * instead: SQLite's FTS5 index of project names (migration 0012) and its shadow tables, rewritten
 * in blocks whose layout no request controls; and the name gram counters (migration 0014), which
 * two creates touch differently because their generated names hold different characters. Also
 * SQLite's creation-order counters (migration 0018), which every insert moves on.
 */
const DERIVED = /^(projects_name_search(_|$)|project_name_grams$|creation_sequences$)/;

async function snapshot(ctx: TestContext, tables: readonly string[]): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const table of tables) out.set(table, await (ctx.database.db as any).selectFrom(table).selectAll().execute());
  return out;
}

const keyOf = (row: DbRow, omit: ReadonlySet<string>) =>
  JSON.stringify(
    Object.keys(row)
      .filter((k) => !omit.has(k))
      .sort()
      .map((k) => [k, row[k]]),
  );

/** Tables keyed by other columns than an id or the ids they join: their key. */
const COMPOSITE_KEYS: Record<string, readonly string[]> = {
  // A blob part is family/owner/name/part; its `key_id` names the key that sealed it.
  blobs: ['family', 'owner', 'name', 'part'],
};

/** A row's identity: its id, its table's composite key, or for a join table the ids it joins. */
const identity = (table: string, row: DbRow) => {
  if ('id' in row) return String(row.id);
  const key = COMPOSITE_KEYS[table];
  return keyOf(Object.fromEntries(Object.entries(row).filter(([k]) => (key ? key.includes(k) : k.endsWith('_id')))), new Set());
};

/** Rows created, and rows changed or deleted (all columns but TOUCHED compared), between two snapshots. */
function changes(before: Snapshot, after: Snapshot) {
  const added = new Map<string, DbRow[]>();
  const altered = new Map<string, DbRow[]>();
  for (const table of after.keys()) {
    const old = new Map((before.get(table) ?? []).map((r) => [identity(table, r), r]));
    const now = new Map(after.get(table)!.map((r) => [identity(table, r), r]));
    const plus = [...now].filter(([id]) => !old.has(id)).map(([, r]) => r);
    const minus = [...old].filter(([id, r]) => !now.has(id) || keyOf(now.get(id)!, TOUCHED) !== keyOf(r, TOUCHED)).map(([, r]) => r);
    if (plus.length) added.set(table, plus);
    if (minus.length) altered.set(table, minus);
  }
  return { added, altered };
}

/** How many rows of each table a change deleted and how many it changed. */
function touched(altered: Map<string, DbRow[]>, after: Snapshot) {
  return Object.fromEntries(
    [...altered].map(([table, rows]) => {
      const ids = new Set(after.get(table)!.map((r) => identity(table, r)));
      const deleted = rows.filter((r) => !ids.has(identity(table, r))).length;
      return [table, { deleted, changed: rows.length - deleted }];
    }),
  );
}

const propertiesOf = (schema: any): Set<string> => new Set(Object.keys(schema?.properties ?? {}));

/** Which members of the body a route's schema models, level by level. */
function modelled(schema: any) {
  const data = schema?.properties?.data;
  const item = data?.type === 'array' ? data.items : data;
  return {
    where: !data ? ('top' as const) : data.type === 'array' ? ('items' as const) : ('attributes' as const),
    document: propertiesOf(schema),
    data: propertiesOf(item),
    attributes: propertiesOf(item?.properties?.attributes),
    relationships: propertiesOf(item?.properties?.relationships),
  };
}
type Modelled = ReturnType<typeof modelled>;

/** The column names as keys (snake and kebab case), leaving out those `taken` already. */
function junkKeys(columns: readonly Column[], taken: ReadonlySet<string>): [string, Column][] {
  const out = new Map<string, Column>();
  for (const c of columns) for (const key of [c.name, c.name.replaceAll('_', '-')]) if (!taken.has(key) && !out.has(key)) out.set(key, c);
  return [...out];
}

function junkValue(c: Column, index: number, kind: JunkValues, victimId: string): unknown {
  if (kind === 'telling') return c.boolean ? true : c.name.endsWith('_at') ? FAR_PAST : victimId;
  return [null, 9_007_199_254_740_991, { id: victimId, type: 'users' }, [victimId]][index % 4];
}

const junkObject = (columns: readonly Column[], taken: ReadonlySet<string>, kind: JunkValues, victimId: string) =>
  Object.fromEntries(junkKeys(columns, taken).map(([key, c], i) => [key, junkValue(c, i, kind, victimId)]));

/** `body` with junk in each of `positions` the body's shape has room for. */
function withJunk(body: any, m: Modelled, positions: readonly JunkPosition[], columns: readonly Column[], kind: JunkValues, victimId: string): unknown {
  if (m.where === 'top') return positions.includes('attributes') ? { ...junkObject(columns, m.document, kind, victimId), ...body } : body;
  const dress = (d: any) => {
    let out = { ...d };
    if (positions.includes('attributes')) out.attributes = { ...junkObject(columns, m.attributes, kind, victimId), ...d.attributes };
    // `type` and `id` are never junk: they name the resource (a differing id is a client error).
    if (positions.includes('data')) out = { ...junkObject(columns, new Set([...m.data, 'type', 'id']), kind, victimId), ...out };
    if (positions.includes('relationships') && m.where === 'attributes') {
      const junk = Object.fromEntries(junkKeys(columns, m.relationships).map(([key]) => [key, { data: { type: 'users', id: victimId } }]));
      out.relationships = { ...junk, ...d.relationships };
    }
    return out;
  };
  const data = m.where === 'items' ? body.data.map(dress) : dress(body.data);
  const document = positions.includes('document') ? junkObject(columns, new Set([...m.document, 'data']), kind, victimId) : {};
  return { ...document, ...body, data };
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
    // Sealed values differ by their random nonce even when the clear text is the same.
    const sealed = (typeof v === 'string' && /^v1:[0-9a-f]{16}:/.test(v)) || (k === 'body' && row.key_id != null && v instanceof Uint8Array);
    out[k] = generated(k) ? '<generated>' : sealed ? '<sealed>' : v;
  }
  return keyOf(out, new Set());
}

/** Registers, inside a harness suite, one test per POST/PATCH row of the access matrix (and per caller and kind of values, as `options` say). */
export function massAssignmentCases(ctx: TestContext, options: MassAssignmentOptions): void {
  let victim: { id: string; token: string };
  let columns: Column[];
  let tables: string[];
  let world: World;

  before(async () => {
    victim = await ctx.user({ siteAdmin: true });
    const found = await ownTables(ctx);
    tables = found.map((t) => t.name).sort();
    columns = found.flatMap((t) => t.columns.map((c) => ({ table: t.name, name: c.name, boolean: /^bool/i.test(c.dataType) })));
    world = new World(ctx);
  });

  for (const row of ROWS.filter((r) => r.method === 'POST' || r.method === 'PATCH')) {
    const allowed = CALLERS.filter((k) => row.expect[k] < 300);
    const kinds: CallerKind[] = options.callers === 'first' ? allowed.slice(0, 1) : allowed;
    for (const kind of kinds) {
      for (const values of options.values) {
        const title = options.callers === 'first' && options.values.length === 1 ? rowKey(row) : `${rowKey(row)} as ${kind}, ${values} values`;
        it(`${title}: every column name in the body changes nothing`, async (t) => {
          const route = ctx.app.routeTable.find((r) => r.method === row.method && r.url === row.path)!;
          if (!route.hasBody) return t.skip('no body');
          await checkRow(row, kind, values, route.body);
        });
      }
    }
  }

  async function checkRow(row: Row, kind: CallerKind, values: JunkValues, schema: unknown) {
    const spec = REQUESTS[rowKey(row)]!;
    const m = modelled(schema);
    const junked = (body: unknown) => withJunk(body, m, options.positions, columns, values, victim.id);
    const junkValues = [victim.id, FAR_PAST];
    const send = async (w: World, req: CellRequest, body: unknown) => {
      const token = await w.token(kind);
      await req.asCaller?.(token);
      return ctx.request(row.method, url(row, req), { token, body, contentType: req.contentType });
    };
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

    let res;
    let after: Snapshot;
    if (controlChanges.added.size === 0) {
      // Changes existing rows: the same request again, now with the junk, must change nothing.
      res = await send(first.w, first.req, junked(first.req.body));
      after = await snapshot(ctx, tables);
      const { added, altered } = changes(s1, after);
      assert.deepEqual([...added.keys(), ...altered.keys()], [], `rows changed by the junk: ${JSON.stringify([...added, ...altered])}`);
    } else {
      // Creates rows: a second create with the junk must leave existing rows alone and write
      // rows equal to the control's but for ids, names and times.
      const second = await prepare();
      const s2 = await snapshot(ctx, tables);
      res = await send(second.w, second.req, junked(second.req.body));
      after = await snapshot(ctx, tables);
      const { added, altered } = changes(s2, after);
      // A create may replace what it creates (an organization token replaces the slot's last
      // one, the caller's own token included): the junk request may do what the control did, no more.
      assert.deepEqual(touched(altered, after), touched(controlChanges.altered, s1), `existing rows changed: ${JSON.stringify([...altered])}`);
      const shape = (map: Map<string, DbRow[]>, what: string) =>
        Object.fromEntries([...map].map(([table, rows]) => [table, rows.map((r) => normalised(r, junkValues, `${what} ${table}`)).sort()]));
      assert.deepEqual(shape(added, 'junk request:'), shape(controlChanges.added, 'control:'));
    }
    assert.ok(res.status < 500, `${res.status} ${res.raw}`);
    assert.equal(res.status, control.status, res.raw);
    for (const [table, rows] of after) {
      for (const r of rows) {
        for (const [k, v] of Object.entries(r)) if (k.endsWith('_at')) assert.notEqual(v, FAR_PAST, `${table}.${k} took the junk timestamp`);
      }
    }
  }
}
