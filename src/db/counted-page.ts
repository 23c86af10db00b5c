// A list page and the list's counts in one statement: each count is an uncorrelated subquery
// beside each row (`total_count`, evaluated once by SQLite and PostgreSQL), so a page costs one
// round trip. Only a page past the end, which has no row to carry them, asks for the counts on
// their own.
import type { Compilable } from 'kysely';
import { compiledByKey } from './compiled.ts';
import type { Queryable } from './index.ts';

/** The list's total, as a page's rows and the counts' own row carry it. */
export interface TotalCount {
  total_count: unknown;
}

/**
 * The total and how many of it the caller's filter matches (a search, say). A page may leave
 * `matching_count` out when nothing filters the list (the two counts are one); the counts' own
 * row always has both.
 */
export interface MatchingCount extends TotalCount {
  matching_count?: unknown;
}

/** What a page's two queries are built from, when they must be built (db/compiled.ts `compiledByKey`). */
export interface CountedPageQueries<Row, Counts extends TotalCount> {
  /** The page, each row with the list's counts beside its columns. */
  page: () => Compilable<Row & Counts>;
  /** The counts alone (one row). */
  total: () => Compilable<Counts>;
}

/** The list's total from a row that carries it; no row (a missing counter, say): 0. */
export const totalOf = (r: TotalCount | undefined): number => Number(r?.total_count ?? 0);

/** How many the filter matches, from a row that carries the counts: the total when the row has no `matching_count`. */
export const matchingOf = (r: MatchingCount | undefined): number => Number((r?.matching_count === undefined ? r?.total_count : r.matching_count) ?? 0);

type Reader<Row, Counts extends TotalCount, Result> = (
  q: Queryable,
  key: string | null,
  queries: CountedPageQueries<Row, Counts>,
) => Promise<{ rows: Array<Row & Counts> } & Result>;

/**
 * The reader of one kind of page: `key` names everything both queries depend on (null: built
 * and compiled every time), as for `compiledByKey`. With `{ matching: true }` the rows carry
 * `matching_count` too, and the result has `matching` beside `total`.
 */
export function countedPages<Row>(): Reader<Row, TotalCount, { total: number }>;
export function countedPages<Row>(counts: { matching: true }): Reader<Row, MatchingCount, { total: number; matching: number }>;
export function countedPages<Row>(counts?: { matching: true }): Reader<Row, MatchingCount, { total: number; matching?: number }> {
  const pages = compiledByKey<Row & MatchingCount>();
  const totals = compiledByKey<MatchingCount>();
  return async (q, key, queries) => {
    const rows = await pages(q, key, queries.page);
    const carrier = rows[0] ?? (await totals(q, key, queries.total))[0];
    return counts?.matching ? { rows, total: totalOf(carrier), matching: matchingOf(carrier) } : { rows, total: totalOf(carrier) };
  };
}
