// Rows of another table beside each row of a list, as JSON built by the database: a page and
// what each of its rows shows of related tables, in one statement. SQLite's json_array is text;
// PostgreSQL's json_build_array comes back parsed (node-postgres reads `json`). `jsonOf` reads both.
import { sql, type RawBuilder } from 'kysely';

/** Where the related rows are: `table`'s rows whose `owner` column equals the outer query's column `outer`, in `order`. */
export interface Related {
  table: string;
  columns: readonly string[];
  owner: string;
  outer: string;
  /** Absent: at most one row is related (the owner column is unique), in no order. */
  order?: string;
  descending?: boolean;
}

const parts = (r: Related) => ({
  values: sql.join(r.columns.map((c) => sql.ref(`${r.table}.${c}`))),
  where: sql`${sql.ref(`${r.table}.${r.owner}`)} = ${sql.ref(r.outer)}`,
  order: r.order === undefined ? undefined : sql`${sql.ref(`${r.table}.${r.order}`)} ${sql.raw(r.descending ? 'desc' : 'asc')}`,
});

/** A correlated subquery: the first related row's columns as a JSON array, null when there is none. */
export function jsonFirst(postgres: boolean, r: Related): RawBuilder<unknown> {
  const { values, where, order } = parts(r);
  const array = postgres ? sql`json_build_array(${values})` : sql`json_array(${values})`;
  if (!order) return sql`(select ${array} from ${sql.table(r.table)} where ${where})`;
  return sql`(select ${array} from ${sql.table(r.table)} where ${where} order by ${order} limit 1)`;
}

/** A correlated subquery: every related row's columns, each a JSON array, in a JSON array (null or `[]` when none). */
export function jsonAll(postgres: boolean, r: Related & { order: string }): RawBuilder<unknown> {
  const { values, where, order } = parts(r);
  const aggregate = postgres ? sql`json_agg(json_build_array(${values}) order by ${order!})` : sql`json_group_array(json_array(${values}) order by ${order!})`;
  return sql`(select ${aggregate} from ${sql.table(r.table)} where ${where})`;
}

/** A value `jsonFirst` or `jsonAll` selected: parsed when it is text, null as it is. */
export function jsonOf<T>(value: unknown): T | null {
  return value === null || value === undefined ? null : typeof value === 'string' ? (JSON.parse(value) as T) : (value as T);
}
