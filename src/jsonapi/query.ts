// Query strings. Keys stay flat (`filter[names]` is one key, as Fastify leaves it), a repeated key
// keeps its last value (as in Rails), and each route declares its parameters as a TypeBox schema
// built from the types below. A type's `description` says what a value must be: a value that is
// not answers 400 "<parameter> must be <description>", naming the parameter.
import { parse } from 'fast-querystring';
import { Type, type TSchema } from 'typebox';
import { ApiError, errors } from './errors.ts';

/** Fastify's querystring parser for Hangar: flat keys, every value a string, the last one winning. */
export function parseQuery(text: string): Record<string, string> {
  if (text.length === 0) return {};
  const parsed = parse(text) as Record<string, string | string[]>;
  for (const key in parsed) {
    const value = parsed[key]!;
    if (Array.isArray(value)) parsed[key] = value[value.length - 1]!;
  }
  return parsed as Record<string, string>;
}

/** A presence flag such as `filter[permissions][update]`: absent or `false` is off; present with no value, or `true`, is on. */
export const Flag = Type.Optional(Type.Enum(['', 'true', 'false'], { description: 'true or false' }));
export const flag = (value: string | undefined): boolean => value === '' || value === 'true';

/** A parameter that must be sent and not be empty. */
export const Required = Type.String({ minLength: 1 });

export interface Sort<F extends string> {
  field: F;
  descending: boolean;
}

/** `sort=name` / `sort=-name` for one of `fields` (`-` reverses); absent: the list's default order. */
export function SortParam<const F extends string>(fields: readonly F[]) {
  const values = fields.flatMap((f) => [f, `-${f}`]);
  return Type.Optional(Type.Unsafe<F | `-${F}`>(Type.Enum(values, { description: `one of ${values.join(', ')}` })));
}

export function sortOf<F extends string>(value: F | `-${F}` | undefined): Sort<F> | undefined {
  if (value === undefined) return undefined;
  const descending = value.startsWith('-');
  return { field: (descending ? value.slice(1) : value) as F, descending };
}

/**
 * The most values one multi-value filter takes (a comma list, numbered `filter[tagged][i]` pairs).
 * Each value becomes a term of the list's query; a thousand of them made SQLite refuse the query.
 */
export const MAX_FILTER_VALUES = 100;

/** The 400 for a filter given more than MAX_FILTER_VALUES values, naming it. */
export const tooManyValues = (parameter: string) => errors.badRequest(`${parameter} takes at most ${MAX_FILTER_VALUES} values`, parameter);

/** `a, b,c` → ['a', 'b', 'c']; absent or empty → undefined; more than MAX_FILTER_VALUES → 400 naming `parameter`. */
export function commaList(value: string | undefined, parameter: string): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (items.length > MAX_FILTER_VALUES) throw tooManyValues(parameter);
  return items.length ? items : undefined;
}

/** `include`: every listed value must be one the endpoint supports (else 400 naming them, as in TFE). */
export function includes(value: string | undefined, allowed: readonly string[]): string[] {
  const values = commaList(value, 'include') ?? [];
  const bad = values.filter((v) => !allowed.includes(v));
  if (bad.length) throw errors.badRequest(`Invalid include parameter: ${bad.join(', ')}`, 'include');
  return values;
}

interface ValidationError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

const unescapePointer = (segment: string) => segment.replaceAll('~1', '/').replaceAll('~0', '~');

/**
 * The 400 for a query string its schema refused: one error, for the first refused parameter in
 * the schema's order, worded from that parameter's type. An empty value counts as a missing one.
 */
export function queryError(validation: readonly ValidationError[], schema: TSchema | undefined): ApiError {
  const properties: Record<string, TSchema> = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const order = Object.keys(properties);
  const refused = validation
    .map((v) => ({ v, name: v.keyword === 'required' ? String(v.params.missingProperty) : unescapePointer(v.instancePath.slice(1)) }))
    .sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
  const first = refused[0];
  if (!first) return errors.badRequest('The query string is invalid');
  const missing = first.v.keyword === 'required' || (first.v.keyword === 'minLength' && first.v.params.limit === 1);
  const description = (properties[first.name] as { description?: string } | undefined)?.description;
  const detail = missing ? `${first.name} is required` : `${first.name} must be ${description ?? 'valid'}`;
  return errors.badRequest(detail, first.name);
}
