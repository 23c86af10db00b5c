// Which rows of a table a caller may see or act on, as a condition a store applies to its query.
// auth/ builds these next to the same rule in JavaScript; a store applies one without knowing
// the rule behind it.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Schema } from './schema.ts';

/** A condition on rows of table `T`; null when every row passes (no condition to add). */
export type RowFilter<T extends keyof Schema> = ((eb: ExpressionBuilder<Schema, T>) => Expression<SqlBool>) | null;
