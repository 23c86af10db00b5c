// Reads that skip Kysely's executor. Its connection hand-off, plugins and result transforms are
// a promise chain that cost more than a cached read's one statement on SQLite; `openDatabase`
// registers, for its handle, a reader that runs a compiled read on the driver itself, keeping
// what the executor did for such a read (query log, error count). `compiledOnce` uses it.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Schema } from './schema.ts';

/** Runs a compiled read on a database's root handle, outside any transaction. */
export type DirectReader = <Row>(query: CompiledQuery<Row>) => Row[] | Promise<Row[]>;

const readers = new WeakMap<Kysely<Schema>, DirectReader>();

/** Called once by `openDatabase`: compiled reads on `db` go through `reader`. */
export function readDirectly(db: Kysely<Schema>, reader: DirectReader): void {
  readers.set(db, reader);
}

/** The reader registered for `db`, if any. */
export function directReader(db: Kysely<Schema>): DirectReader | undefined {
  return readers.get(db);
}
