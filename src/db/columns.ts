// One column map per table: which column holds which field of the domain object, written once and
// used both ways (reading rows, inserting and updating them). The map is turned into plain
// functions once, when the store module loads, so mapping a row costs what a hand-written
// object literal costs: lists map every row of every page, and performance matters there.
import type { Insertable, Selectable, Updateable } from 'kysely';

/** A column whose value is converted on the way in and out (SQLite's 0/1 booleans, JSON text…). */
export interface Converted<C extends string, V> {
  readonly column: C;
  readonly read: (stored: any) => V;
  /** Omitted: written as it is. */
  readonly write?: (value: V) => unknown;
}

/** A field computed from the whole row when reading, never written (it is not one column). */
export interface Computed<V> {
  readonly computed: (row: any) => V;
}

type ColumnName<R> = keyof Selectable<R> & string;
/** Columns whose stored type is already the field's type: named as they are. */
type PlainColumn<R, V> = { [C in ColumnName<R>]: [Selectable<R>[C]] extends [V] ? C : never }[ColumnName<R>];
type Field<R, V> = PlainColumn<R, V> | Converted<ColumnName<R>, V> | Computed<V> | (V extends Record<string, unknown> ? ColumnMap<R, V> : never);

/** Every field of `E` and where it lives in a row of `R`. */
export type ColumnMap<R, E> = { readonly [K in keyof E]-?: Field<R, E[K]> };

/** A boolean column: SQLite hands back 0 or 1, PostgreSQL true or false. */
export const bool = <C extends string>(column: C): Converted<C, boolean> => ({ column, read: Boolean });

/** A text column holding one of a fixed set of values; anything else reads as `fallback`. */
export const oneOf = <V extends string, C extends string>(column: C, values: readonly V[], fallback: V): Converted<C, V> => ({
  column,
  read: (stored: string) => (values.includes(stored as V) ? (stored as V) : fallback),
});

const AS_STORED = (stored: unknown) => stored;
/**
 * A text column whose values only Hangar's own writes put there, each already one of `V` (the
 * request schemas enforce it): read as it is, at no cost.
 */
export const typed =
  <V extends string>() =>
  <C extends string>(column: C): Converted<C, V> => ({ column, read: AS_STORED as (stored: unknown) => V });

export interface Columns<R, E> {
  /** A row (selectAll) as the domain object. */
  read(row: Selectable<R>): E;
  /** The domain object as a row to insert. */
  write(entity: E): Insertable<R>;
  /**
   * A writer for updates that may change `keys` and nothing else; a key left undefined is not
   * written, so the result holds exactly what the caller decided to change.
   */
  patch<K extends keyof E>(...keys: K[]): (changes: Partial<Pick<E, K>>) => Updateable<R>;
}

type AnyField = string | Converted<string, unknown> | Computed<unknown> | { readonly [k: string]: AnyField };

export function columns<R, E>(map: ColumnMap<R, E>): Columns<R, E> {
  // The generated code only ever holds names from `map` (JSON-quoted) and calls to these functions.
  const functions: Array<(value: unknown) => unknown> = [];
  const call = (f: (value: any) => unknown, argument: string) => `f[${functions.push(f) - 1}](${argument})`;
  const q = JSON.stringify;

  const reader = (field: AnyField): string => {
    if (typeof field === 'string') return `r[${q(field)}]`;
    if ('computed' in field && typeof field.computed === 'function') return call(field.computed, 'r');
    if ('read' in field && field.read === AS_STORED) return `r[${q(field.column)}]`;
    if ('read' in field && typeof field.read === 'function') return call(field.read, `r[${q(field.column)}]`);
    return `{ ${Object.entries(field as Record<string, AnyField>)
      .map(([k, v]) => `${q(k)}: ${reader(v)}`)
      .join(', ')} }`;
  };
  /** [column, expression] pairs that write `value` (an expression) of this field. */
  const writers = (field: AnyField, value: string): Array<[string, string]> => {
    if (typeof field === 'string') return [[field, value]];
    if ('computed' in field && typeof field.computed === 'function') return [];
    if ('read' in field && typeof field.read === 'function') {
      const write = (field as Converted<string, unknown>).write;
      return [[field.column as string, write ? call(write as (v: unknown) => unknown, value) : value]];
    }
    return Object.entries(field as Record<string, AnyField>).flatMap(([k, v]) => writers(v, `${value}[${q(k)}]`));
  };
  const compile = (body: string) => new Function('f', `"use strict"; return ${body};`)(functions);

  const root = map as unknown as Record<string, AnyField>;
  const assignments = (pairs: Array<[string, string]>) => pairs.map(([c, e]) => `${q(c)}: ${e}`).join(', ');
  return {
    read: compile(`(r) => (${reader(root)})`),
    write: compile(`(e) => ({ ${assignments(writers(root, 'e'))} })`),
    patch: (...keys) => {
      const lines = keys.map((k) => {
        const v = `p[${q(k)}]`;
        return `if (${v} !== undefined) { ${writers(root[k as string]!, v)
          .map(([c, e]) => `o[${q(c)}] = ${e};`)
          .join(' ')} }`;
      });
      return compile(`(p) => { const o = {}; ${lines.join(' ')} return o; }`);
    },
  };
}

/**
 * The fields `keys` of a map, as a map of their own: a narrower read of the same table (a list
 * that shows less than a show) that declares no column a second time.
 */
export function pickColumns<R, E, K extends keyof E & string>(map: ColumnMap<R, E>, keys: readonly K[]): ColumnMap<R, Pick<E, K>> {
  return Object.fromEntries(keys.map((k) => [k, map[k]])) as unknown as ColumnMap<R, Pick<E, K>>;
}

/** The columns a map reads, for a select of no more than it needs. */
export function columnNames<R, E>(map: ColumnMap<R, E>): Array<ColumnName<R>> {
  const names = (field: AnyField): string[] => {
    if (typeof field === 'string') return [field];
    // Which columns a computed field reads is its own business: such a map selects them all.
    if ('computed' in field && typeof field.computed === 'function') throw new Error('columnNames: a computed field reads columns it does not name');
    if ('read' in field && typeof field.read === 'function') return [field.column as string];
    return Object.values(field as Record<string, AnyField>).flatMap(names);
  };
  return [...new Set(names(map as unknown as AnyField))] as Array<ColumnName<R>>;
}
