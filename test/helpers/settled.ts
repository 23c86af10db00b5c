// Counting a request's statements once the caches it may use hold. On PostgreSQL a write's
// notification (db/changes.ts) arrives a moment after the write and drops the caches again, so
// the first requests after one may load what later ones find cached.
import { setTimeout as sleep } from 'node:timers/promises';

interface Recorder {
  statementsOf<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }>;
}

/**
 * `fn`'s statements once they are `expected` in number: asked again (a few seconds at most)
 * while they are more; the last attempt is returned either way, for the caller to assert on.
 */
export async function settledStatements<T>(ctx: Recorder, fn: () => Promise<T>, expected: number): Promise<{ result: T; statements: string[] }> {
  let last = await ctx.statementsOf(fn);
  for (let attempt = 0; attempt < 100 && last.statements.length > expected; attempt++) {
    await sleep(20);
    last = await ctx.statementsOf(fn);
  }
  return last;
}
