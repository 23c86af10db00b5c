// Arithmetic, ordering, containment and regular-expression matching on Sentinel values.
import { SentinelError, type Pos } from './errors.ts';
import { equals, isNumber, mapKey, num, SFloat, typeOf, type Value } from './values.ts';

/** Strings longer than this end the evaluation: a doubling loop must not exhaust memory. */
export const MAX_STRING = 16 * 1024 * 1024;

interface Charger {
  charge(n: number, pos: Pos): void;
}

export function arith(op: string, l: Value, r: Value, pos: Pos, charger: Charger): Value {
  if (l === undefined || r === undefined) return undefined;
  if (typeof l === 'number' && typeof r === 'number') {
    switch (op) {
      case '+':
        return l + r;
      case '-':
        return l - r;
      case '*':
        return l * r;
      case '/':
        if (r === 0) throw new SentinelError('division by zero', pos);
        return Math.trunc(l / r);
      case '%':
        if (r === 0) throw new SentinelError('division by zero', pos);
        return l % r;
    }
  }
  if (isNumber(l) && isNumber(r)) {
    const a = num(l);
    const b = num(r);
    switch (op) {
      case '+':
        return new SFloat(a + b);
      case '-':
        return new SFloat(a - b);
      case '*':
        return new SFloat(a * b);
      // The specification leaves a float division by zero to IEEE-754 (+Inf, -Inf or NaN, as Go
      // computes it); only an int divisor of zero is an error.
      case '/':
        return new SFloat(a / b);
      case '%':
        return new SFloat(a % b);
    }
  }
  if (op === '+' && typeof l === 'string' && typeof r === 'string') {
    if (l.length + r.length > MAX_STRING) throw new SentinelError(`string longer than ${MAX_STRING} characters`, pos);
    charger.charge(Math.ceil((l.length + r.length) / 1024), pos);
    return l + r;
  }
  if (op === '+' && Array.isArray(l) && Array.isArray(r)) {
    charger.charge(l.length + r.length, pos);
    return l.concat(r);
  }
  throw new SentinelError(`unsupported operation: ${typeOf(l)} ${op} ${typeOf(r)}`, pos);
}

/**
 * How `l` orders against `r`: negative, zero or positive, for two numbers (ints and floats mix) or
 * two strings; undefined for anything else. The comparison operators and `compare()` share it.
 */
export function ordering(l: Value, r: Value): number | undefined {
  if (isNumber(l) && isNumber(r)) return num(l) - num(r);
  if (typeof l === 'string' && typeof r === 'string') return l === r ? 0 : byteOrder(l, r);
  return undefined;
}

/**
 * The specification orders strings "lexically byte-wise", by their UTF-8 bytes, which is the order
 * of their code points. JavaScript's `<` compares UTF-16 units instead, putting a character past
 * U+FFFF (a surrogate pair, 0xD800–0xDFFF) before U+E000–U+FFFF; shifting the units fixes that.
 */
function byteOrder(l: string, r: string): number {
  const n = Math.min(l.length, r.length);
  for (let i = 0; i < n; i++) {
    let a = l.charCodeAt(i);
    let b = r.charCodeAt(i);
    if (a === b) continue;
    if (a >= 0xd800) a = a <= 0xdfff ? a + 0x2000 : a - 0x800;
    if (b >= 0xd800) b = b <= 0xdfff ? b + 0x2000 : b - 0x800;
    return a - b;
  }
  return l.length - r.length;
}

export function compare(op: string, l: Value, r: Value, pos: Pos): boolean | undefined {
  const c = ordering(l, r);
  if (c === undefined) {
    // The specification: a comparison between values of different types (other than an int and
    // a float) is undefined; two values of one type that has no order (lists, maps) is an error.
    if (typeOf(l) !== typeOf(r) && !(isNumber(l) && isNumber(r))) return undefined;
    throw new SentinelError(`cannot compare ${typeOf(l)} ${op} ${typeOf(r)}`, pos);
  }
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/** Whether `collection` holds `item`: a list element, a map key, or a substring. */
export function contains(collection: Value, item: Value, pos: Pos, op: string): boolean {
  if (Array.isArray(collection)) {
    for (const x of collection) if (equals(x, item)) return true;
    return false;
  }
  if (collection instanceof Map) {
    const key = mapKey(item);
    return key !== undefined && collection.has(key);
  }
  if (typeof collection === 'string') {
    if (typeof item !== 'string') throw new SentinelError(`${op}: a string can only contain a string, got ${typeOf(item)}`, pos);
    return collection.includes(item);
  }
  throw new SentinelError(`${op}: ${typeOf(collection)} is not a list, map or string`, pos);
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  digit: '0-9',
  lower: 'a-z',
  upper: 'A-Z',
  space: '\\t\\n\\v\\f\\r ',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  print: ' -~',
  graph: '!-~',
  ascii: '\\x00-\\x7F',
};
const regexCache = new Map<string, RegExp>();

/** A regular expression in the RE2 syntax Sentinel uses, as far as JavaScript's agrees. */
export function compileRegex(pattern: string, pos: Pos): RegExp {
  let re = regexCache.get(pattern);
  if (re) return re;
  let source = pattern;
  // Without the u flag unless the pattern needs it (\p{…} classes): V8's linear-time engine, which
  // takes over from backtracking when a host enables it (see docs/sentinel.md), has no u mode.
  let flags = /\\[pP]\{|\\u\{/.test(pattern) ? 'u' : '';
  const inline = /^\(\?([imsU]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    if (inline[1]!.includes('i')) flags += 'i';
    if (inline[1]!.includes('m')) flags += 'm';
    if (inline[1]!.includes('s')) flags += 's';
  }
  // RE2's \A and \z anchors, (?P<name>…) groups and [[:class:]] names, in JavaScript's spelling.
  source = source
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$')
    .replace(/\(\?P</g, '(?<')
    .replace(/\[:(alnum|alpha|digit|lower|upper|space|word|xdigit|punct|blank|cntrl|print|graph|ascii):\]/g, (_m, name: string) => POSIX_CLASSES[name]!);
  try {
    re = new RegExp(source, flags);
  } catch (err) {
    throw new SentinelError(`invalid regular expression ${JSON.stringify(pattern)}: ${(err as Error).message}`, pos);
  }
  if (regexCache.size > 1000) regexCache.clear();
  regexCache.set(pattern, re);
  return re;
}

export function matches(l: Value, r: Value, pos: Pos): boolean {
  if (typeof l !== 'string' || typeof r !== 'string') throw new SentinelError(`matches: operands must be strings, got ${typeOf(l)} and ${typeOf(r)}`, pos);
  return compileRegex(r, pos).test(l);
}
