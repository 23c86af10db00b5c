// The built-in functions every policy has without an import. The conversions (int, float,
// string, bool) give undefined for a value they cannot convert, so that `else` can supply a default.
import { arity } from './hostfn.ts';
import { MAX_STRING, ordering } from './operators.ts';
import { formatFloat, mapKey, SBuiltin, SFloat, toDisplay, typeOf, type CallContext, type Value } from './values.ts';

// An int literal as the specification writes one (decimal, `0`-prefixed octal, `0x` hex), with
// an optional sign: what `int` reads from a string.
const INT_LITERAL = /^([+-]?)(?:(0[xX][0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))$/;
const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function toInt(v: Value, ctx: CallContext): Value {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  // Toward zero, as Go converts (the docs' "rounded down" is also what they call -5 / 3 = -1).
  if (v instanceof SFloat) return Number.isFinite(v.v) ? Math.trunc(v.v) : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    // "according to the syntax of integer literals": "0x10" is 16 and "010" is 8. A float's
    // text is truncated as a float is (the variables page: `int("1.1")` is 1); anything else,
    // " 5" included, is undefined.
    const m = INT_LITERAL.exec(v);
    if (m) {
      const n = m[2] ? Number.parseInt(m[2].slice(2), 16) : m[3] ? Number.parseInt(m[3], 8) : Number(m[4]);
      return m[1] === '-' ? -n : n;
    }
    return FLOAT_TEXT.test(v) ? Math.trunc(Number(v)) : undefined;
  }
  return undefined;
}

function toFloat(v: Value, ctx: CallContext): Value {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return new SFloat(v);
  if (v instanceof SFloat) return v;
  if (typeof v === 'boolean') return new SFloat(v ? 1 : 0);
  if (typeof v === 'string') {
    // The text itself, not trimmed: " 4.2" is no float literal.
    if (FLOAT_TEXT.test(v)) return new SFloat(Number(v));
    return undefined;
  }
  return undefined;
}

// The strings the specification lists for `bool`, and no others ("tRUE" and " true" are undefined).
const BOOL_STRINGS = new Map<string, boolean>([
  ...['1', 't', 'T', 'TRUE', 'true', 'True'].map((s): [string, boolean] => [s, true]),
  ...['0', 'f', 'F', 'FALSE', 'false', 'False'].map((s): [string, boolean] => [s, false]),
]);

function toBool(v: Value, ctx: CallContext): Value {
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof SFloat) return v.v !== 0;
  if (typeof v === 'string') return BOOL_STRINGS.get(v);
  return undefined;
}

export function toStringValue(v: Value): Value {
  // The specification: a float as `%f` formats it, six digits after the point ("1.500000").
  if (v instanceof SFloat) return formatF(v.v);
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return toDisplay(v);
  // "For any other unspecified type, the result is the undefined value": null, lists, maps…
  return undefined;
}

/** Go's `%f`: fixed notation however large the number (toFixed switches to exponents at 1e21). */
function formatF(x: number): string {
  // NaN and the infinities as Go spells them, as `print` writes them.
  if (!Number.isFinite(x)) return formatFloat(x);
  if (Math.abs(x) < 1e21) return x.toFixed(6);
  return `${BigInt(x)}.000000`;
}

/**
 * The length of a string (its bytes, as Sentinel's documentation says: not necessarily its
 * characters), a list or a map; null for a value that has none. `length` and `is empty` use it.
 */
export function lengthOf(v: Value): number | null {
  if (typeof v === 'string') return Buffer.byteLength(v, 'utf8');
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  return null;
}

export const BUILTINS = new Map<string, SBuiltin>(
  [
    arity('length', 1, 1, ([v], ctx) => {
      if (v === undefined) return undefined;
      return lengthOf(v) ?? ctx.fail(`length: ${typeOf(v)} has no length`);
    }),
    // The specification: appending to anything but a list, undefined included, is an error.
    arity('append', 2, 2, ([list, v], ctx) => {
      if (!Array.isArray(list)) return ctx.fail(`append: first argument must be a list, got ${typeOf(list)}`);
      list.push(v);
      return undefined;
    }),
    // Likewise deleting from anything but a map: `delete(undefined, "b")` is an error.
    arity('delete', 2, 2, ([m, key], ctx) => {
      if (!(m instanceof Map)) return ctx.fail(`delete: first argument must be a map, got ${typeOf(m)}`);
      const k = mapKey(key);
      if (k !== undefined) m.delete(k);
      return undefined;
    }),
    arity('keys', 1, 1, ([m], ctx) => {
      if (m === undefined) return undefined;
      if (!(m instanceof Map)) return ctx.fail(`keys: argument must be a map, got ${typeOf(m)}`);
      ctx.charge(m.size);
      return [...m.keys()];
    }),
    arity('values', 1, 1, ([m], ctx) => {
      if (m === undefined) return undefined;
      if (!(m instanceof Map)) return ctx.fail(`values: argument must be a map, got ${typeOf(m)}`);
      ctx.charge(m.size);
      return [...m.values()];
    }),
    arity('range', 1, 3, (args, ctx) => {
      if (args.some((a) => a === undefined)) return undefined;
      if (args.some((a) => typeof a !== 'number')) return ctx.fail('range: arguments must be ints');
      const [start, end, step] = args.length === 1 ? [0, args[0] as number, 1] : [args[0] as number, args[1] as number, (args[2] as number | undefined) ?? 1];
      if (step === 0) return ctx.fail('range: step cannot be zero');
      const n = Math.max(0, Math.ceil((end - start) / step));
      ctx.charge(n);
      const out: Value[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = start + i * step;
      return out;
    }),
    // -1, 0 or +1 as the first is less than, equal to or greater than the second: two numbers
    // (ints and floats mix, as in arithmetic) or two strings (byte order); nothing else.
    arity('compare', 2, 2, ([a, b], ctx) => {
      if (a === undefined || b === undefined) return undefined;
      const c = ordering(a, b);
      if (c === undefined) return ctx.fail(`compare: arguments must be two numbers or two strings, got ${typeOf(a)} and ${typeOf(b)}`);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }),
    arity('int', 1, 1, ([v], ctx) => toInt(v, ctx)),
    arity('float', 1, 1, ([v], ctx) => toFloat(v, ctx)),
    arity('bool', 1, 1, ([v], ctx) => toBool(v, ctx)),
    arity('string', 1, 1, ([v], ctx) => {
      const s = toStringValue(v);
      if (typeof s === 'string' && s.length > MAX_STRING) ctx.fail(`string longer than ${MAX_STRING} characters`);
      return s;
    }),
    new SBuiltin('print', (args, ctx) => {
      ctx.print(args.map((a) => toDisplay(a)).join(' '));
      return true;
    }),
    new SBuiltin('error', (args, ctx) => ctx.fail(args.map((a) => toDisplay(a)).join(' '))),
  ].map((b) => [b.name, b]),
);
