// Which rows of a table a caller may see or act on, as a condition a store applies to its query.
// auth/ builds these next to the same rule in JavaScript; a store applies one without knowing
// the rule behind it.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Schema } from './schema.ts';

/**
 * A condition on rows of table `T`; null when every row passes (no condition to add). `key`, when
 * given, names the condition exactly (the same key, the same SQL and values), so that a query
 * built with it may be compiled once for that key (db/compiled.ts `compiledByKey`).
 */
export type RowFilter<T extends keyof Schema> = (((eb: ExpressionBuilder<Schema, T>) => Expression<SqlBool>) & { key?: string }) | null;

/** The name of a filter for a compiled-query key: `*` for none, null when it has no name (nothing may be cached). */
export function filterKey(filter: RowFilter<keyof Schema>): string | null {
  return filter === null ? '*' : (filter.key ?? null);
}
