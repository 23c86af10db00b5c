// The one shape of every list: a query for the rows (a page of them) and one for the counts,
// run together, whatever the page size.
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Schema } from './schema.ts';

/** Which rows of a list to return. */
export interface Window {
  offset: number;
  size: number;
}

/** The rows `rows` selects (the page `page` of them; all of them when null), mapped, and the counts. */
export async function listed<Row, Item, Counts>(
  rows: SelectQueryBuilder<Schema, any, Row>,
  page: Window | null,
  map: (row: Row) => Item,
  counts: Promise<Counts>,
): Promise<{ items: Item[]; counts: Counts }> {
  const [found, c] = await Promise.all([(page ? rows.limit(page.size).offset(page.offset) : rows).execute(), counts]);
  return { items: found.map(map), counts: c };
}

/** How many rows `base` (a FROM with its WHERE) holds. */
export async function countOf(base: SelectQueryBuilder<Schema, any, object>): Promise<number> {
  const r = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The common case: a list whose only count is the total. */
export async function listWithTotal<Row, Item>(
  base: SelectQueryBuilder<Schema, any, object>,
  rows: SelectQueryBuilder<Schema, any, Row>,
  page: Window | null,
  map: (row: Row) => Item,
): Promise<{ items: Item[]; total: number }> {
  const { items, counts } = await listed(rows, page, map, countOf(base));
  return { items, total: counts };
}
