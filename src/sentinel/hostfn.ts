// Host functions (built-ins, standard imports' functions and methods) with a checked argument count.
import { SBuiltin, type CallContext, type Value } from './values.ts';

type Body = (args: Value[], ctx: CallContext) => Value;

/** A host function taking from `min` to `max` arguments (`Infinity` for no upper bound). */
export function arity(name: string, min: number, max: number, body: Body): SBuiltin {
  return new SBuiltin(name, (args, ctx) => {
    if (args.length < min || args.length > max) {
      const count = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      ctx.fail(`${name} takes ${count} argument(s), got ${args.length}`);
    }
    return body(args, ctx);
  });
}

/** A host function taking exactly `n` arguments. */
export function fn(name: string, n: number, body: Body): SBuiltin {
  return arity(name, n, n, body);
}
