// Readers for query-string parameters. Fastify leaves bracketed keys flat (`filter[names]`), and a
// repeated key arrives as an array; the last value wins, as in Rails.

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
