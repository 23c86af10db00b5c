// The `collection`, `collection/lists` and `collection/maps` standard imports: helpers over lists
// and maps that HashiCorp's current policy libraries lean on (`collection.reject`, `maps.get`...).
// Predicates and sort functions are the policy's own functions, called back through the
// interpreter, so they are bounded by the same step and depth limits as any other call.
import { arity, fn } from './hostfn.ts';
import { equals, isNumber, num, RecordObject, SFloat, SFunc, typeOf, type CallContext, type MapKey, type SMap, type SObject, type Value } from './values.ts';

/** The elements of a list (with their index) or of a map (with their key), in order. */
function entriesOf(name: string, items: Value, ctx: CallContext): Array<[Value, MapKey]> {
  if (Array.isArray(items)) {
    ctx.charge(items.length);
    return items.map((v, i) => [v, i]);
  }
  if (items instanceof Map) {
    ctx.charge(items.size);
    return [...items.entries()].map(([k, v]) => [v, k]);
  }
  return ctx.fail(`${name}: items must be a list or a map, got ${typeOf(items)}`);
}

/**
 * Calls a predicate (or an accumulator, with `leading` arguments first) with as many of
 * (value, index-or-key) as it declares: `func(el)` and `func(el, index)` both work.
 */
function callBack(ctx: CallContext, callback: Value, leading: Value[], value: Value, key: MapKey): Value {
  const args = [...leading, value, key];
  const wanted = callback instanceof SFunc ? callback.node.params.length : leading.length + 1;
  return ctx.call(callback, args.slice(0, Math.min(wanted, args.length)));
}

/** filter and reject: the values whose predicate result is (or is not) `true`, as a list. */
function selecting(name: string, keep: boolean) {
  return fn(name, 2, ([items, predicate], ctx) => {
    if (items === undefined) return undefined;
    const out: Value[] = [];
    for (const [v, k] of entriesOf(name, items, ctx)) if ((callBack(ctx, predicate, [], v, k) === true) === keep) out.push(v);
    return out;
  });
}

/** Every key of `partial` is in `value` with an equal value; nested maps compare the same way. */
function matchesPartial(value: Value, partial: SMap): boolean {
  if (!(value instanceof Map)) return false;
  for (const [k, want] of partial) {
    if (!value.has(k)) return false;
    const have = value.get(k);
    if (want instanceof Map ? !matchesPartial(have, want) : !equals(have, want)) return false;
  }
  return true;
}

export function collectionImport(): SObject {
  return new RecordObject('import', {
    filter: selecting('collection.filter', true),
    reject: selecting('collection.reject', false),
    find: fn('collection.find', 2, ([items, predicate], ctx) => {
      if (items === undefined) return undefined;
      for (const [v, k] of entriesOf('collection.find', items, ctx)) if (callBack(ctx, predicate, [], v, k) === true) return v;
      return undefined;
    }),
    matches: fn('collection.matches', 2, ([items, partial], ctx) => {
      if (items === undefined || partial === undefined) return undefined;
      if (!(partial instanceof Map)) return ctx.fail(`collection.matches: partial must be a map, got ${typeOf(partial)}`);
      return entriesOf('collection.matches', items, ctx)
        .map(([v]) => v)
        .filter((v) => matchesPartial(v, partial));
    }),
    reduce: arity('collection.reduce', 2, 3, (args, ctx) => {
      const [items, accumulator] = args;
      if (items === undefined) return undefined;
      const entries = entriesOf('collection.reduce', items, ctx);
      // Without an initial value the first element is the start and the fold begins at the second.
      let acc = args.length === 3 ? args[2] : entries.shift()?.[0];
      for (const [v, k] of entries) acc = callBack(ctx, accumulator, [acc], v, k);
      return acc;
    }),
  });
}

/** The lists of a variadic list helper; undefined if any is undefined, an error if one is not a list. */
function listArgs(name: string, args: Value[], ctx: CallContext): Value[][] | undefined {
  if (args.some((a) => a === undefined)) return undefined;
  for (const a of args) if (!Array.isArray(a)) ctx.fail(`${name}: arguments must be lists, got ${typeOf(a)}`);
  const lists = args as Value[][];
  ctx.charge(lists.reduce((n, l) => n + l.length, 0));
  return lists;
}

/** Whether `list` holds a value equal to `v` (deep equality, as `==`), charging for the scan. */
function holds(list: Value[], v: Value, ctx: CallContext): boolean {
  ctx.charge(list.length);
  return list.some((x) => equals(x, v));
}

export function collectionListsImport(): SObject {
  const difference = arity('collection/lists.difference', 1, Infinity, (args, ctx) => {
    const lists = listArgs('collection/lists.difference', args, ctx);
    if (!lists) return undefined;
    const [first, ...others] = lists;
    return first!.filter((v) => !others.some((o) => holds(o, v, ctx)));
  });
  return new RecordObject('import', {
    concat: arity('collection/lists.concat', 2, Infinity, (args, ctx) => listArgs('collection/lists.concat', args, ctx)?.flat(1)),
    difference,
    diff: difference,
    intersection: arity('collection/lists.intersection', 1, Infinity, (args, ctx) => {
      const lists = listArgs('collection/lists.intersection', args, ctx);
      if (!lists) return undefined;
      const [first, ...others] = lists;
      const out: Value[] = [];
      for (const v of first!) if (!holds(out, v, ctx) && others.every((o) => holds(o, v, ctx))) out.push(v);
      return out;
    }),
    union: arity('collection/lists.union', 1, Infinity, (args, ctx) => {
      const lists = listArgs('collection/lists.union', args, ctx);
      if (!lists) return undefined;
      const out: Value[] = [];
      for (const v of lists.flat(1)) if (!holds(out, v, ctx)) out.push(v);
      return out;
    }),
    sort: fn('collection/lists.sort', 2, ([items, compare], ctx) => {
      const lists = listArgs('collection/lists.sort', [items], ctx);
      if (!lists) return undefined;
      // Array.prototype.sort is stable; the policy's function answers -1, 0 or +1 (any int is
      // read by its sign).
      return [...lists[0]!].sort((a, b) => {
        const r = ctx.call(compare, [a, b]);
        if (typeof r !== 'number') return ctx.fail(`collection/lists.sort: the sort function must return -1, 0 or 1, got ${typeOf(r)}`);
        return Math.sign(r);
      });
    }),
    sum: fn('collection/lists.sum', 1, ([items], ctx) => {
      const lists = listArgs('collection/lists.sum', [items], ctx);
      if (!lists) return undefined;
      let total = 0;
      for (const v of lists[0]!) {
        if (!isNumber(v)) return ctx.fail(`collection/lists.sum: elements must be numbers, got ${typeOf(v)}`);
        total += num(v);
      }
      return new SFloat(total);
    }),
  });
}

// ---- collection/maps: paths such as "foo.0.bar" or "foo.*.bar" into nested maps and lists ----

const SPLAT = '*';

function pathOf(name: string, path: Value, ctx: CallContext): string[] {
  if (typeof path !== 'string') return ctx.fail(`${name}: path must be a string, got ${typeOf(path)}`);
  ctx.charge(path.length);
  return path.split('.');
}

/** A list index named by a path segment, or -1 when the segment is not one. */
function indexOf(segment: string, list: Value[]): number {
  if (!/^\d+$/.test(segment)) return -1;
  const i = Number(segment);
  return i < list.length ? i : -1;
}

/** The map key a path segment names: the string itself, or the number it spells if only that exists. */
function keyOf(segment: string, map: SMap): MapKey | undefined {
  if (map.has(segment)) return segment;
  const n = Number(segment);
  return segment !== '' && map.has(n) ? n : undefined;
}

/** The value at `path`, or undefined; a splat collects the values found under every element. */
function lookup(value: Value, path: string[], at: number, ctx: CallContext): Value {
  if (at === path.length) return value;
  ctx.charge(1);
  const segment = path[at]!;
  if (segment === SPLAT && (Array.isArray(value) || value instanceof Map)) {
    const out: Value[] = [];
    for (const v of Array.isArray(value) ? value : value.values()) {
      const found = lookup(v, path, at + 1, ctx);
      if (found !== undefined) out.push(found);
    }
    return out;
  }
  if (Array.isArray(value)) {
    const i = indexOf(segment, value);
    return i < 0 ? undefined : lookup(value[i], path, at + 1, ctx);
  }
  if (value instanceof Map) {
    const k = keyOf(segment, value);
    return k === undefined ? undefined : lookup(value.get(k), path, at + 1, ctx);
  }
  return undefined;
}

/** A copy of `value` with `path` assigned, creating maps for missing keys; the input is untouched. */
function assign(name: string, value: Value, path: string[], at: number, v: Value, ctx: CallContext): Value {
  if (at === path.length) return v;
  ctx.charge(1);
  const segment = path[at]!;
  if (Array.isArray(value)) {
    if (segment === SPLAT) return value.map((el) => assign(name, el, path, at + 1, v, ctx));
    const i = indexOf(segment, value);
    if (i < 0) return ctx.fail(`${name}: ${segment} is not an index of a list of ${value.length}`);
    const out = [...value];
    out[i] = assign(name, value[i], path, at + 1, v, ctx);
    return out;
  }
  if (value instanceof Map) {
    const out: SMap = new Map(value);
    if (segment === SPLAT) {
      for (const [k, el] of value) out.set(k, assign(name, el, path, at + 1, v, ctx));
      return out;
    }
    const k = keyOf(segment, value) ?? segment;
    out.set(k, assign(name, value.get(k), path, at + 1, v, ctx));
    return out;
  }
  if (value === undefined || value === null) return assign(name, new Map(), path, at, v, ctx);
  return ctx.fail(`${name}: cannot enter ${typeOf(value)} at ${path.slice(0, at + 1).join('.')}`);
}

/**
 * A copy of `value` without `path`. A map that the removal leaves empty is removed from its
 * parent in turn (`omit(o, ["nit.nat"])` drops `nit`); a list is kept even when emptied, as
 * Sentinel's own examples show.
 */
function remove(value: Value, path: string[], at: number, ctx: CallContext): Value {
  ctx.charge(1);
  const segment = path[at]!;
  const last = at === path.length - 1;
  const pruned = (v: Value) => v instanceof Map && v.size === 0;
  if (Array.isArray(value)) {
    const hit = (i: number) => segment === SPLAT || i === indexOf(segment, value);
    const out: Value[] = [];
    value.forEach((el, i) => {
      if (!hit(i)) return void out.push(el);
      if (last) return;
      const rest = remove(el, path, at + 1, ctx);
      if (!pruned(rest) || pruned(el)) out.push(rest);
    });
    return out;
  }
  if (value instanceof Map) {
    const out: SMap = new Map(value);
    const keys = segment === SPLAT ? [...value.keys()] : [keyOf(segment, value)].filter((k) => k !== undefined);
    for (const k of keys) {
      if (last) out.delete(k);
      else {
        const el = value.get(k);
        const rest = remove(el, path, at + 1, ctx);
        if (pruned(rest) && !pruned(el)) out.delete(k);
        else out.set(k, rest);
      }
    }
    return out;
  }
  return value;
}

/** The parts of `value` that the paths name, keeping their places (list elements in order). */
function project(value: Value, paths: string[][], at: number, ctx: CallContext): Value {
  const live = paths.filter((p) => p.length > at);
  if (live.length < paths.length) return value; // a path ends here: the whole value is picked
  ctx.charge(1);
  const under = (segmentMatches: (s: string) => boolean) => live.filter((p) => p[at] === SPLAT || segmentMatches(p[at]!));
  if (Array.isArray(value)) {
    const out: Value[] = [];
    value.forEach((el, i) => {
      const sub = under((s) => indexOf(s, value) === i);
      if (sub.length) out.push(project(el, sub, at + 1, ctx));
    });
    return out;
  }
  if (value instanceof Map) {
    const out: SMap = new Map();
    for (const [k, el] of value) {
      const sub = under((s) => keyOf(s, value) === k);
      if (sub.length && lookupAny(el, sub, at + 1, ctx)) out.set(k, project(el, sub, at + 1, ctx));
    }
    return out;
  }
  return value;
}

/** Whether any of `paths` (from segment `at`) names something inside `value`. */
function lookupAny(value: Value, paths: string[][], at: number, ctx: CallContext): boolean {
  return paths.some((p) => lookup(value, p, at, ctx) !== undefined);
}

function pathsOf(name: string, paths: Value, ctx: CallContext): string[][] {
  if (!Array.isArray(paths)) return ctx.fail(`${name}: paths must be a list of strings, got ${typeOf(paths)}`);
  return paths.map((p) => pathOf(name, p, ctx));
}

function mapArg(name: string, object: Value, ctx: CallContext): SMap {
  if (!(object instanceof Map)) return ctx.fail(`${name}: object must be a map, got ${typeOf(object)}`);
  return object;
}

export function collectionMapsImport(): SObject {
  return new RecordObject('import', {
    // get and has read anything: a missing or non-map object simply has nothing at the path.
    get: arity('collection/maps.get', 2, 3, ([object, path, fallback], ctx) => {
      const found = lookup(object, pathOf('collection/maps.get', path, ctx), 0, ctx);
      return found === undefined ? fallback : found;
    }),
    has: fn('collection/maps.has', 2, ([object, path], ctx) => lookup(object, pathOf('collection/maps.has', path, ctx), 0, ctx) !== undefined),
    pick: fn('collection/maps.pick', 2, ([object, paths], ctx) => {
      if (object === undefined) return undefined;
      return project(mapArg('collection/maps.pick', object, ctx), pathsOf('collection/maps.pick', paths, ctx), 0, ctx);
    }),
    omit: fn('collection/maps.omit', 2, ([object, paths], ctx) => {
      if (object === undefined) return undefined;
      let out: Value = mapArg('collection/maps.omit', object, ctx);
      for (const p of pathsOf('collection/maps.omit', paths, ctx)) out = remove(out, p, 0, ctx);
      return out;
    }),
    set: fn('collection/maps.set', 3, ([object, path, v], ctx) => {
      if (object === undefined) return undefined;
      return assign('collection/maps.set', mapArg('collection/maps.set', object, ctx), pathOf('collection/maps.set', path, ctx), 0, v, ctx);
    }),
    // Sentinel's own example passes a third argument to unset; it is accepted and ignored.
    unset: arity('collection/maps.unset', 2, 3, ([object, path], ctx) => {
      if (object === undefined) return undefined;
      return remove(mapArg('collection/maps.unset', object, ctx), pathOf('collection/maps.unset', path, ctx), 0, ctx);
    }),
  });
}
