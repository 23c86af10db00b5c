// Host functions (standard imports' functions and methods) with an exact argument count.
import { SBuiltin, type CallContext, type Value } from './values.ts';

export function fn(name: string, n: number, body: (args: Value[], ctx: CallContext) => Value): SBuiltin {
  return new SBuiltin(name, (args, ctx) => {
    if (args.length !== n) ctx.fail(`${name} takes ${n} argument(s), got ${args.length}`);
    return body(args, ctx);
  });
}
