// Sentinel values as JavaScript values, chosen so the common cases cost nothing:
//   undefined → undefined, null → null, bool → boolean, int → number (always an integer),
//   float → SFloat (so that 1 and 1.0 keep their types), string → string, list → Array,
//   map → Map (insertion order), func → SFunc | SBuiltin, rule → SRule,
//   imports, modules and values such as decimals or versions → SObject.
import type { Expr } from './ast.ts';
import type { Pos } from './errors.ts';

export class SFloat {
  readonly v: number;
  constructor(v: number) {
    this.v = v;
  }
}

export type MapKey = string | number | boolean | null;
export type SMap = Map<MapKey, Value>;

/** What a host function gets besides its arguments. */
export interface CallContext {
  pos: Pos;
  /** Charge work proportional to a size against the step bound. */
  charge(steps: number): void;
  /** Call a Sentinel function value (for built-ins that take callbacks). */
  call(fn: Value, args: Value[]): Value;
  print(line: string): void;
  fail(message: string): never;
}

export class SBuiltin {
  readonly name: string;
  readonly fn: (args: Value[], ctx: CallContext) => Value;
  constructor(name: string, fn: (args: Value[], ctx: CallContext) => Value) {
    this.name = name;
    this.fn = fn;
  }
}

/** An import, a module, or a value with attributes and methods (decimal, version, time...). */
export abstract class SObject {
  abstract readonly typeName: string;
  /** The attribute, or undefined when there is none. */
  abstract get(name: string, ctx: CallContext): Value;
  /** Attribute names, for printing and `keys`. */
  attributeNames(): string[] {
    return [];
  }
  toString(): string {
    return `<${this.typeName}>`;
  }
}

/** An import whose attributes are converted from JSON-like data when first read (a `data` mock). */
export class DataObject extends SObject {
  readonly typeName = 'import';
  private readonly data: Record<string, unknown>;
  private readonly converted = new Map<string, Value>();
  constructor(data: Record<string, unknown>) {
    super();
    this.data = data;
  }
  get(name: string): Value {
    if (this.converted.has(name)) return this.converted.get(name);
    if (!Object.hasOwn(this.data, name)) return undefined;
    const v = fromJS(this.data[name]);
    this.converted.set(name, v);
    return v;
  }
  override attributeNames(): string[] {
    return Object.keys(this.data);
  }
}

/** A plain object whose attributes are fixed values (`time.now`, an import's functions etc.). */
export class RecordObject extends SObject {
  readonly typeName: string;
  readonly attrs: Map<string, Value>;
  constructor(typeName: string, attrs: Map<string, Value> | Record<string, Value>) {
    super();
    this.typeName = typeName;
    this.attrs = attrs instanceof Map ? attrs : new Map(Object.entries(attrs));
  }
  get(name: string): Value {
    return this.attrs.get(name);
  }
  override attributeNames(): string[] {
    return [...this.attrs.keys()];
  }
}

export interface Scope {
  vars: Map<string, Value>;
  parent: Scope | null;
  /** Names declared with `func name()`: they cannot be assigned again. */
  constants?: Set<string>;
  /** Names bound by `import`: assigning one shadows it rather than changing it. */
  imports?: Set<string>;
}

export class SFunc {
  readonly node: Expr & { type: 'func' };
  readonly scope: Scope;
  constructor(node: Expr & { type: 'func' }, scope: Scope) {
    this.node = node;
    this.scope = scope;
  }
}

export class SRule {
  readonly node: Expr & { type: 'rule' };
  readonly scope: Scope;
  /** 0 not evaluated, 1 being evaluated (a cycle), 2 done. */
  state: 0 | 1 | 2 = 0;
  value: Value = undefined;
  constructor(node: Expr & { type: 'rule' }, scope: Scope) {
    this.node = node;
    this.scope = scope;
  }
}

export type Value = undefined | null | boolean | number | SFloat | string | Value[] | SMap | SFunc | SBuiltin | SRule | SObject;

export function typeOf(v: Value): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
      return 'int';
    case 'string':
      return 'string';
  }
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  if (v instanceof SFloat) return 'float';
  if (v instanceof SFunc || v instanceof SBuiltin) return 'func';
  if (v instanceof SRule) return 'rule';
  return (v as SObject).typeName;
}

export const isNumber = (v: Value): v is number | SFloat => typeof v === 'number' || v instanceof SFloat;
export const num = (v: number | SFloat) => (typeof v === 'number' ? v : v.v);

/** Deep equality as `==` and `is` define it; ints and floats compare by value. */
export function equals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return num(a) === num(b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      if (!b.has(k) || !equals(v, b.get(k))) return false;
    }
    return true;
  }
  return false;
}

export function mapKey(v: Value): MapKey | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof SFloat) return v.v;
  return undefined;
}

export function formatFloat(f: number): string {
  // Go's spelling of the IEEE-754 specials.
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(f) && Math.abs(f) < 1e21) return f.toFixed(0);
  return String(f);
}

/** The string form `string()` and `print` use for a value. */
export function toDisplay(v: Value, nested = false): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (typeof v === 'string') return nested ? JSON.stringify(v) : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof SFloat) return formatFloat(v.v);
  if (Array.isArray(v)) return `[${v.map((x) => toDisplay(x, true)).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${toDisplay(k, true)}: ${toDisplay(x, true)}`).join(', ')}}`;
  if (v instanceof SFunc || v instanceof SBuiltin) return 'func';
  if (v instanceof SRule) return v.state === 2 ? `rule(${toDisplay(v.value, true)})` : 'rule';
  return v.toString();
}

/**
 * A JSON value that a LazyMap still holds unconverted: a plain object, or a number with a
 * fraction. No Sentinel value is either (maps are Maps, floats SFloats), so the test is exact.
 */
function isRaw(v: unknown): boolean {
  if (typeof v === 'number') return !Number.isInteger(v);
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Map) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * A map made from a JSON object whose nested objects are converted to Sentinel values when first
 * read (lists are converted at once): a policy that looks at a few attributes of a large plan does
 * not pay for converting all of it. Reads, iteration, assignment and deletion behave exactly as on
 * any other map.
 */
export class LazyMap extends Map<MapKey, Value> {
  /** How many values are still unconverted; iteration converts as it goes until none are. */
  private raw = 0;
  constructor(source: Record<string, unknown>) {
    super();
    for (const k in source) {
      let v = source[k];
      if (Array.isArray(v)) v = fromJS(v);
      else if (isRaw(v)) this.raw++;
      super.set(k, v as Value);
    }
  }
  override get(key: MapKey): Value {
    const v = super.get(key);
    if (this.raw === 0 || !isRaw(v)) return v;
    const converted = fromJS(v);
    super.set(key, converted);
    this.raw--;
    return converted;
  }
  override set(key: MapKey, value: Value): this {
    if (this.raw > 0 && isRaw(super.get(key))) this.raw--;
    return super.set(key, value);
  }
  override delete(key: MapKey): boolean {
    if (this.raw > 0 && isRaw(super.get(key))) this.raw--;
    return super.delete(key);
  }
  private *convertedEntries(): Generator<[MapKey, Value], undefined, unknown> {
    for (const k of super.keys()) yield [k, this.get(k)];
  }
  private *convertedValues(): Generator<Value, undefined, unknown> {
    for (const k of super.keys()) yield this.get(k);
  }
  override entries(): MapIterator<[MapKey, Value]> {
    return this.raw ? (this.convertedEntries() as unknown as MapIterator<[MapKey, Value]>) : super.entries();
  }
  override values(): MapIterator<Value> {
    return this.raw ? (this.convertedValues() as unknown as MapIterator<Value>) : super.values();
  }
  override [Symbol.iterator](): MapIterator<[MapKey, Value]> {
    return this.entries();
  }
  override forEach(fn: (value: Value, key: MapKey, map: Map<MapKey, Value>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }
}

/** A JSON-like JavaScript value (mock data, parameters, plan JSON) as a Sentinel value. */
export function fromJS(x: unknown): Value {
  switch (typeof x) {
    case 'string':
    case 'boolean':
      return x;
    case 'number':
      return Number.isInteger(x) ? x : new SFloat(x);
    case 'object': {
      if (x === null) return null;
      if (Array.isArray(x)) {
        const out: Value[] = new Array(x.length);
        for (let i = 0; i < x.length; i++) out[i] = fromJS(x[i]);
        return out;
      }
      const proto = Object.getPrototypeOf(x);
      if (proto === Object.prototype || proto === null) return new LazyMap(x as Record<string, unknown>);
      if (x instanceof Map) {
        const out: SMap = new Map();
        for (const [k, v] of x) out.set(k as MapKey, fromJS(v));
        return out;
      }
      // Already a Sentinel value (SFloat, SObject, a function or a rule).
      return x as Value;
    }
  }
  return undefined;
}

/** A Sentinel value as plain JSON-compatible JavaScript (for results and json.marshal). */
export function toJS(v: Value): unknown {
  if (v === undefined || v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof SFloat) return v.v;
  if (Array.isArray(v)) return v.map(toJS);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), toJS(x)]));
  if (v instanceof SRule) return v.state === 2 ? toJS(v.value) : undefined;
  return toDisplay(v);
}
