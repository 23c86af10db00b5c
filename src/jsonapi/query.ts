// Readers for query-string parameters. Fastify leaves bracketed keys flat (`filter[names]`), and a
// repeated key arrives as an array; the last value wins, as in Rails.
import { errors } from './errors.ts';

export type Query = Record<string, unknown>;

export function stringParam(query: Query, key: string): string | undefined {
  const raw = query[key];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return typeof value === 'string' ? value : undefined;
}

/** `a, b,c` → ['a', 'b', 'c']; absent or empty → undefined. */
export function commaList(query: Query, key: string): string[] | undefined {
  const value = stringParam(query, key);
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

/**
 * A presence flag such as `filter[permissions][update]`: absent or `false` → false; present
 * with no value or `true` → true; anything else is a bad parameter (400).
 */
export function flagParam(query: Query, key: string): boolean {
  const value = stringParam(query, key);
  if (value === undefined || value === 'false') return false;
  if (value === '' || value === 'true') return true;
  throw errors.badRequest(`${key} must be true or false`, key);
}

/** `include`: every listed value must be one the endpoint supports (else 400, as in TFE). */
export function includeParam(query: Query, allowed: readonly string[]): string[] {
  const values = commaList(query, 'include') ?? [];
  const bad = values.filter((v) => !allowed.includes(v));
  if (bad.length) throw errors.badRequest(`Invalid include parameter: ${bad.join(', ')}`, 'include');
  return values;
}

export interface Sort<F extends string> {
  field: F;
  descending: boolean;
}

/**
 * `sort=name` / `sort=-name` for one of `fields`; absent → undefined (the list's default order).
 * Any other value is a 400 naming the parameter, as TFE answers an invalid sort.
 */
export function sortParam<F extends string>(query: Query, fields: readonly F[]): Sort<F> | undefined {
  const value = stringParam(query, 'sort');
  if (value === undefined) return undefined;
  const descending = value.startsWith('-');
  const field = (descending ? value.slice(1) : value) as F;
  if (!fields.includes(field)) {
    const allowed = fields.flatMap((f) => [f, `-${f}`]).join(', ');
    throw errors.badRequest(`sort must be one of ${allowed}`, 'sort');
  }
  return { field, descending };
}
