// The standard imports: strings, types, json, time, units, decimal, version, sockaddr, base64,
// runtime, collection (with collection/lists and collection/maps), and an `http` that refuses
// every request (policies get no network access).
import { collectionImport, collectionListsImport, collectionMapsImport } from './collection.ts';
import { decimalImport } from './decimal.ts';
import { versionImport } from './version.ts';
import { sockaddrImport } from './sockaddr.ts';
import { fn } from './hostfn.ts';
import { NetworkError } from './errors.ts';
import { MAX_STRING } from './operators.ts';
import { fromJS, RecordObject, SBuiltin, SFloat, SFunc, SObject, toDisplay, toJS, typeOf, type CallContext, type Value } from './values.ts';

type Fn = (args: Value[], ctx: CallContext) => Value;

/** A function of strings only: undefined in, undefined out; anything else is an error. */
function strFn(name: string, n: number, body: (args: string[], ctx: CallContext) => Value): SBuiltin {
  return fn(name, n, (args, ctx) => {
    if (args.some((a) => a === undefined)) return undefined;
    for (const a of args) if (typeof a !== 'string') ctx.fail(`${name}: arguments must be strings, got ${typeOf(a)}`);
    return body(args as string[], ctx);
  });
}

const escapeClass = (s: string) => s.replace(/[\\\]^-]/g, '\\$&');

function stringsImport(): SObject {
  const fns: SBuiltin[] = [
    strFn('strings.has_prefix', 2, ([s, p]) => s!.startsWith(p!)),
    strFn('strings.has_suffix', 2, ([s, p]) => s!.endsWith(p!)),
    strFn('strings.trim_prefix', 2, ([s, p]) => (s!.startsWith(p!) ? s!.slice(p!.length) : s!)),
    strFn('strings.trim_suffix', 2, ([s, p]) => (p! && s!.endsWith(p!) ? s!.slice(0, s!.length - p!.length) : s!)),
    strFn('strings.to_lower', 1, ([s]) => s!.toLowerCase()),
    strFn('strings.to_upper', 1, ([s]) => s!.toUpperCase()),
    strFn('strings.title', 1, ([s]) => s!.replace(/(^|\s)(\S)/g, (_, a: string, b: string) => a + b.toUpperCase())),
    strFn('strings.trim_space', 1, ([s]) => s!.trim()),
    strFn('strings.trim', 2, ([s, cut]) => (cut ? s!.replace(new RegExp(`^[${escapeClass(cut)}]+|[${escapeClass(cut)}]+$`, 'gu'), '') : s!)),
    strFn('strings.trim_left', 2, ([s, cut]) => (cut ? s!.replace(new RegExp(`^[${escapeClass(cut)}]+`, 'u'), '') : s!)),
    strFn('strings.trim_right', 2, ([s, cut]) => (cut ? s!.replace(new RegExp(`[${escapeClass(cut)}]+$`, 'u'), '') : s!)),
    strFn('strings.index', 2, ([s, sub]) => s!.indexOf(sub!)),
    strFn('strings.last_index', 2, ([s, sub]) => s!.lastIndexOf(sub!)),
    // "As a special-case, if the input is already a list, it will be returned as-is."
    fn('strings.split', 2, ([s, sep], ctx) => {
      if (Array.isArray(s)) return s;
      if (s === undefined || sep === undefined) return undefined;
      if (typeof s !== 'string' || typeof sep !== 'string') return ctx.fail(`strings.split: arguments must be strings, got ${typeOf(s)} and ${typeOf(sep)}`);
      ctx.charge(Math.ceil(s.length / 64));
      return sep === '' ? [...s] : s.split(sep);
    }),
    // Nested lists are flattened and ints, floats and bools written as strings, as documented.
    fn('strings.join', 2, ([list, sep], ctx) => {
      if (list === undefined || sep === undefined) return undefined;
      if (!Array.isArray(list) || typeof sep !== 'string') return ctx.fail('strings.join: arguments must be a list and a string');
      const parts: string[] = [];
      const add = (items: Value[]) => {
        ctx.charge(items.length);
        for (const x of items) {
          if (Array.isArray(x)) add(x);
          else if (typeof x === 'string') parts.push(x);
          else if (typeof x === 'number' || typeof x === 'boolean' || x instanceof SFloat) parts.push(toDisplay(x));
          else ctx.fail(`strings.join: cannot join a ${typeOf(x)}`);
        }
      };
      add(list);
      return parts.join(sep);
    }),
    // strings.replace(s, old, new[, times]): every occurrence without times or with times < 0.
    new SBuiltin('strings.replace', (args, ctx) => {
      if (args.length !== 3 && args.length !== 4) return ctx.fail(`strings.replace takes 3 or 4 argument(s), got ${args.length}`);
      const [s, from, to] = args;
      const n = args.length === 4 ? args[3] : -1;
      if ([s, from, to, n].includes(undefined)) return undefined;
      if (typeof s !== 'string' || typeof from !== 'string' || typeof to !== 'string' || typeof n !== 'number') {
        return ctx.fail('strings.replace: arguments must be three strings and an int');
      }
      if (n < 0) return s.split(from).join(to);
      let out = s;
      let at = 0;
      for (let i = 0; i < n; i++) {
        const j = out.indexOf(from, at);
        if (j < 0) break;
        out = out.slice(0, j) + to + out.slice(j + from.length);
        at = j + to.length + (from === '' ? 1 : 0);
      }
      return out;
    }),
    fn('strings.repeat', 2, ([s, n], ctx) => {
      if (s === undefined || n === undefined) return undefined;
      if (typeof s !== 'string' || typeof n !== 'number' || n < 0) return ctx.fail('strings.repeat: arguments must be a string and a non-negative int');
      if (s.length * n > 16 * 1024 * 1024) return ctx.fail('strings.repeat: result too long');
      ctx.charge(Math.ceil((s.length * n) / 1024));
      return s.repeat(n);
    }),
  ];
  return new RecordObject('import', new Map(fns.map((f) => [f.name.slice('strings.'.length), f])));
}

function typesImport(): SObject {
  return new RecordObject('import', { type_of: fn('types.type_of', 1, ([v]) => typeOf(v)) });
}

// The json page: undefined inside a list or a map is left out (the element, or the key and its
// value); functions cannot be encoded and are an error.
function marshal(v: Value, ctx: CallContext): unknown {
  if (v instanceof Map) {
    const entries: Array<[string, unknown]> = [];
    for (const [k, x] of v) if (x !== undefined) entries.push([String(k), marshal(x, ctx)]);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  }
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map((x) => marshal(x, ctx));
  if (v instanceof SBuiltin || v instanceof SFunc) return ctx.fail('json.marshal: a function cannot be encoded');
  return toJS(v);
}

/** JSON text as Sentinel values: whole numbers become ints, as Sentinel's decoder does. */
export function parseJSON(text: string): Value {
  return fromJS(JSON.parse(text));
}

function jsonImport(): SObject {
  return new RecordObject('import', {
    marshal: fn('json.marshal', 1, ([v], ctx) => {
      // "If undefined is supplied directly to marshal, it will return undefined."
      if (v === undefined) return undefined;
      const encoded = JSON.stringify(marshal(v, ctx), (_k, x) => (x instanceof SFloat ? x.v : x));
      return encoded;
    }),
    valid: fn('json.valid', 1, ([s], ctx) => {
      if (s === undefined) return undefined;
      if (typeof s !== 'string') return ctx.fail(`json.valid: argument must be a string, got ${typeOf(s)}`);
      try {
        JSON.parse(s);
        return true;
      } catch {
        return false;
      }
    }),
    unmarshal: fn('json.unmarshal', 1, ([s], ctx) => {
      if (s === undefined) return undefined;
      if (typeof s !== 'string') return ctx.fail(`json.unmarshal: argument must be a string, got ${typeOf(s)}`);
      try {
        return parseJSON(s);
      } catch (err) {
        return ctx.fail(`json.unmarshal: ${(err as Error).message}`);
      }
    }),
  });
}

const KIB = 1024;
function unitsImport(): SObject {
  return new RecordObject('import', {
    byte: 1,
    kilobyte: KIB,
    megabyte: KIB ** 2,
    gigabyte: KIB ** 3,
    terabyte: KIB ** 4,
    petabyte: KIB ** 5,
  });
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const NS = 1_000_000_000n;

/**
 * A timespace of Sentinel's `time` import: an instant to the nanosecond (`ns` since the Unix
 * epoch) read in a fixed UTC offset (`offset` seconds east). An RFC 3339 time keeps the offset it
 * was written with, so `time.load("2019-11-16T01:20:30-08:00")` has `hour` 1 and `zone` -28800.
 */
class TimeValue extends SObject {
  readonly typeName = 'time';
  readonly ns: bigint;
  readonly offset: number;
  constructor(ns: bigint, offset = 0) {
    super();
    this.ns = ns;
    this.offset = offset;
  }
  private other(v: Value, ctx: CallContext): bigint {
    if (v instanceof TimeValue) return v.ns;
    return loadTime(v, ctx).ns;
  }
  private get seconds(): bigint {
    // Floor division: a time before 1970 still has a nanosecond part in [0, 1e9).
    return this.ns >= 0n || this.ns % NS === 0n ? this.ns / NS : this.ns / NS - 1n;
  }
  private get nanos(): number {
    return Number(this.ns - this.seconds * NS);
  }
  /** The wall clock of this time's zone, as a Date read in UTC. */
  private get local(): Date {
    return new Date((Number(this.seconds) + this.offset) * 1000);
  }
  private get zoneString(): string {
    const abs = Math.abs(this.offset);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${this.offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600))}:${pad(Math.floor(abs / 60) % 60)}`;
  }
  /** RFC 3339, with the fraction of a second when there is one (`nano`), as Go formats it. */
  format(nano: boolean): string {
    const text = this.local.toISOString().slice(0, 19);
    const fraction = nano && this.nanos ? `.${String(this.nanos).padStart(9, '0').replace(/0+$/, '')}` : '';
    return `${text}${fraction}${this.offset === 0 ? 'Z' : this.zoneString}`;
  }
  get(name: string, ctx: CallContext): Value {
    const d = this.local;
    switch (name) {
      case 'year':
        return d.getUTCFullYear();
      case 'month':
        return d.getUTCMonth() + 1;
      case 'month_name':
        return MONTHS[d.getUTCMonth()];
      case 'day':
        return d.getUTCDate();
      case 'hour':
        return d.getUTCHours();
      case 'minute':
        return d.getUTCMinutes();
      case 'second':
        return d.getUTCSeconds();
      case 'nanosecond':
        return this.nanos;
      case 'weekday':
        return d.getUTCDay();
      case 'weekday_name':
        return WEEKDAYS[d.getUTCDay()];
      case 'unix':
        return Number(this.seconds);
      case 'unix_nano':
        return Number(this.ns);
      case 'zone':
        return this.offset;
      case 'zone_string':
        return this.zoneString;
      case 'rfc3339':
      case 'string':
        return this.format(false);
      case 'after':
        return fn('time.after', 1, ([t]) => this.ns > this.other(t, ctx));
      case 'before':
        return fn('time.before', 1, ([t]) => this.ns < this.other(t, ctx));
      case 'equal':
        return fn('time.equal', 1, ([t]) => this.ns === this.other(t, ctx));
      case 'add':
        return fn('time.add', 1, ([ns], c) => {
          if (typeof ns !== 'number') return c.fail('time.add: duration must be an int of nanoseconds');
          return new TimeValue(this.ns + BigInt(ns), this.offset);
        });
      case 'sub':
        return fn('time.sub', 1, ([t]) => Number(this.ns - this.other(t, ctx)));
    }
    return undefined;
  }
  override toString(): string {
    return this.format(true);
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function loadTime(v: Value, ctx: CallContext): TimeValue {
  if (v instanceof TimeValue) return v;
  // A number of seconds since the epoch, in UTC.
  if (typeof v === 'number') return new TimeValue(BigInt(v) * NS);
  if (typeof v === 'string') {
    const m = RFC3339.exec(v);
    if (m) {
      const offset = m[8] || !m[9] ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60);
      const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
      if (!Number.isNaN(wall)) {
        const nanos = BigInt((m[7] ?? '').padEnd(9, '0') || '0');
        return new TimeValue((BigInt(wall / 1000) - BigInt(offset)) * NS + nanos, offset);
      }
    }
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return new TimeValue(BigInt(ms) * 1_000_000n);
  }
  return ctx.fail(`time.load: cannot read a time from ${typeOf(v)} ${typeof v === 'string' ? JSON.stringify(v) : ''}`.trim());
}

function timeImport(now: number): SObject {
  return new RecordObject('import', {
    now: new TimeValue(BigInt(Math.floor(now)) * 1_000_000n),
    load: fn('time.load', 1, ([v], ctx) => (v === undefined ? undefined : loadTime(v, ctx))),
    nanosecond: 1,
    microsecond: 1_000,
    millisecond: 1_000_000,
    second: 1_000_000_000,
    minute: 60_000_000_000,
    hour: 3_600_000_000_000,
  });
}

function httpImport(): SObject {
  const refuse: Fn = (_args, ctx) => {
    throw new NetworkError('the http import is not available: policies evaluated by Hangar have no network access', ctx.pos);
  };
  return new RecordObject('import', {
    get: new SBuiltin('http.get', refuse),
    request: new SBuiltin('http.request', refuse),
    accept_status_codes: new SBuiltin('http.accept_status_codes', refuse),
    with_timeout: new SBuiltin('http.with_timeout', refuse),
  });
}

/**
 * RFC 4648 Base64 as Sentinel's Go runtime has it: the standard alphabet or the URL one, both
 * padded, and decoding strict (a character outside the alphabet, or padding where it cannot be,
 * is an error; Go skips line breaks, and so does this).
 */
const BASE64 = {
  standard: { alphabet: /^[A-Za-z0-9+/]*={0,2}$/, encoding: 'base64' as const },
  url: { alphabet: /^[A-Za-z0-9_-]*={0,2}$/, encoding: 'base64url' as const },
};

function base64Import(): SObject {
  const encode = (name: string, kind: keyof typeof BASE64) =>
    strFn(name, 1, ([s], ctx) => {
      ctx.charge(Math.ceil(s!.length / 64));
      if (Math.ceil(Buffer.byteLength(s!) / 3) * 4 > MAX_STRING) return ctx.fail(`${name}: result longer than ${MAX_STRING} characters`);
      const text = Buffer.from(s!, 'utf8').toString(BASE64[kind].encoding);
      // Node's URL alphabet leaves the padding out; Go's URLEncoding keeps it.
      return kind === 'url' ? text.padEnd(Math.ceil(text.length / 4) * 4, '=') : text;
    });
  const decode = (name: string, kind: keyof typeof BASE64) =>
    strFn(name, 1, ([s], ctx) => {
      ctx.charge(Math.ceil(s!.length / 64));
      const text = s!.replace(/[\r\n]/g, '');
      if (text.length % 4 !== 0 || !BASE64[kind].alphabet.test(text)) return ctx.fail(`${name}: illegal base64 data`);
      return Buffer.from(text, BASE64[kind].encoding).toString('utf8');
    });
  return new RecordObject('import', {
    encode: encode('base64.encode', 'standard'),
    decode: decode('base64.decode', 'standard'),
    urlencode: encode('base64.urlencode', 'url'),
    urldecode: decode('base64.urldecode', 'url'),
  });
}

/** The version of Sentinel's language this runtime follows, as `runtime.version` reports it. */
export const SENTINEL_VERSION = '0.24.0';

/** Each standard import by name, built per evaluation; `now` is the instant `time.now` reports. */
const STANDARD: Record<string, (now: number) => SObject> = {
  strings: stringsImport,
  types: typesImport,
  json: jsonImport,
  units: unitsImport,
  time: timeImport,
  decimal: decimalImport,
  version: versionImport,
  sockaddr: sockaddrImport,
  base64: base64Import,
  runtime: () => new RecordObject('import', { version: SENTINEL_VERSION }),
  collection: collectionImport,
  'collection/lists': collectionListsImport,
  'collection/maps': collectionMapsImport,
  http: httpImport,
};

/** The standard import `name` (fixed `time.now` at `now`), or null when there is none. */
export function standardImport(name: string, now: number): SObject | null {
  return Object.hasOwn(STANDARD, name) ? STANDARD[name]!(now) : null;
}

export const STANDARD_IMPORTS = Object.keys(STANDARD);
