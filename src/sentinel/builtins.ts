// The built-in functions every policy has without an import. The conversions (int, float,
// bool) give undefined for a value they cannot convert, so that `else` can supply a default.
import { arity } from './hostfn.ts';
import { MAX_STRING, ordering } from './operators.ts';
import { mapKey, SBuiltin, SFloat, toDisplay, typeOf, type CallContext, type Value } from './values.ts';

function toInt(v: Value, ctx: CallContext): Value {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return v;
  if (v instanceof SFloat) return Math.trunc(v.v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = v.trim();
    if (/^[+-]?\d+$/.test(s)) return Number(s);
    if (/^[+-]?0[xX][0-9a-fA-F]+$/.test(s)) return Number.parseInt(s, 16);
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Math.trunc(Number(s));
    return undefined;
  }
  return undefined;
}

function toFloat(v: Value, ctx: CallContext): Value {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return new SFloat(v);
  if (v instanceof SFloat) return v;
  if (typeof v === 'boolean') return new SFloat(v ? 1 : 0);
  if (typeof v === 'string') {
    const s = v.trim();
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return new SFloat(Number(s));
    return undefined;
  }
  return undefined;
}

function toBool(v: Value, ctx: CallContext): Value {
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof SFloat) return v.v !== 0;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (['true', '1', 't'].includes(s)) return true;
    if (['false', '0', 'f'].includes(s)) return false;
    return undefined;
  }
  return undefined;
}

export function toStringValue(v: Value): Value {
  if (v === undefined) return undefined;
  // The specification: a float as `%f` formats it, six digits after the point ("1.500000").
  if (v instanceof SFloat) return v.v.toFixed(6);
  return toDisplay(v);
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
    arity('append', 2, 2, ([list, v], ctx) => {
      if (list === undefined) return undefined;
      if (!Array.isArray(list)) return ctx.fail(`append: first argument must be a list, got ${typeOf(list)}`);
      list.push(v);
      return undefined;
    }),
    arity('delete', 2, 2, ([m, key], ctx) => {
      if (m === undefined) return undefined;
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
