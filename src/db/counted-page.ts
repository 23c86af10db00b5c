// A list page and the list's total in one statement: the total is an uncorrelated subquery beside
// each row (`total_count`, evaluated once by SQLite and PostgreSQL), so a page costs one round
// trip. Only a page past the end, which has no row to carry it, asks for the total on its own.
import type { Compilable } from 'kysely';
import { compiledByKey } from './compiled.ts';
import type { Queryable } from './index.ts';

/** What a page's two queries are built from, when they must be built (db/compiled.ts `compiledByKey`). */
export interface CountedPageQueries<Row> {
  /** The page, each row with the list's total as `total_count`. */
  page: () => Compilable<Row & { total_count: unknown }>;
  /** The total alone, as `total_count` (one row). */
  total: () => Compilable<{ total_count: unknown }>;
}

/**
 * The reader of one kind of page: `key` names everything both queries depend on (null: built
 * and compiled every time), as for `compiledByKey`.
 */
export function countedPages<Row>() {
  const pages = compiledByKey<Row & { total_count: unknown }>();
  const totals = compiledByKey<{ total_count: unknown }>();
  return async (
    q: Queryable,
    key: string | null,
    queries: CountedPageQueries<Row>,
  ): Promise<{ rows: Array<Row & { total_count: unknown }>; total: number }> => {
    const rows = await pages(q, key, queries.page);
    const carrier = rows[0] ?? (await totals(q, key, queries.total))[0];
    return { rows, total: Number(carrier?.total_count ?? 0) };
  };
}
