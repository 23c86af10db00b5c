// Hot queries built and compiled once. Kysely builds an operation tree and compiles it to SQL on
// every execution, which was a third of a cached request's CPU; a query whose shape never
// changes needs neither more than once. The query stays written with the query builder, typed,
// in the store that owns it: `compiledOnce` runs the builder once with stand-in values, finds
// where they landed among the compiled parameters, and from then on only swaps in the values.
// Outside a transaction it also skips Kysely's executor (direct-reads.ts).
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { directReader, type DirectReader } from './direct-reads.ts';
import type { Queryable } from './index.ts';
import type { Schema } from './schema.ts';

/**
 * `build` must pass each argument through unchanged as one bound parameter (an id compared with
 * `=`, say), and its shape must not depend on the arguments. On a transaction (or another
 * handle) the builder runs as usual.
 */
export function compiledOnce<Args extends string[], Row>(build: (q: Queryable, ...args: Args) => Compilable<Row>) {
  const cache = new WeakMap<Kysely<Schema>, { compiled: CompiledQuery<Row>; slots: number[]; reader: DirectReader | undefined }>();
  return async (q: Queryable, ...args: Args): Promise<Row[]> => {
    if (q.isTransaction) return (await q.executeQuery(build(q, ...args))).rows;
    const db = q as Kysely<Schema>;
    let entry = cache.get(db);
    if (!entry) {
      const markers = args.map((_, i) => `\u0000hangar:${i}\u0000`) as Args;
      const compiled = build(db, ...markers).compile();
      const slots = compiled.parameters.map((p) => markers.indexOf(p as string));
      if (slots.filter((s) => s >= 0).length !== args.length) throw new Error('compiledOnce: every argument must be exactly one parameter');
      // The handle's reader is registered when it is opened, before any query: looked up once.
      entry = { compiled, slots, reader: directReader(db) };
      cache.set(db, entry);
    }
    const { compiled, slots, reader } = entry;
    const query: CompiledQuery<Row> = { ...compiled, parameters: compiled.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p)) };
    return reader ? reader(query) : (await db.executeQuery(query)).rows;
  };
}

/**
 * Queries whose shape and values come from a few inputs a store can name cheaply (a list page:
 * the organization, the caller's filter, the sort, the window), compiled once per such key. The
 * key must name everything the query depends on: the same key, the same SQL and the same values.
 * A null key (an input without a name, a tag filter say) builds and compiles as usual. At most
 * `max` are kept per database handle, the oldest let go first.
 */
export function compiledByKey<Row>(max = 1_000) {
  const cache = new WeakMap<Kysely<Schema>, Map<string, { compiled: CompiledQuery<Row>; reader: DirectReader | undefined }>>();
  return async (q: Queryable, key: string | null, build: () => Compilable<Row>): Promise<Row[]> => {
    if (key === null || q.isTransaction) return (await q.executeQuery(build())).rows;
    const db = q as Kysely<Schema>;
    let entries = cache.get(db);
    if (!entries) cache.set(db, (entries = new Map()));
    let entry = entries.get(key);
    if (!entry) {
      if (entries.size >= max) entries.delete(entries.keys().next().value!);
      entry = { compiled: build().compile(), reader: directReader(db) };
      entries.set(key, entry);
    }
    return entry.reader ? entry.reader(entry.compiled) : (await db.executeQuery(entry.compiled)).rows;
  };
}
