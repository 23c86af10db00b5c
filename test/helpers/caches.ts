// Caches (db/changes.ts) make a request's work depend on what came before it; tests that count
// queries compare requests in the steady state. On PostgreSQL caching starts once the change
// listener is connected, a moment after the first query, and the notifications of earlier writes
// (this process's own included) arrive a moment after each commit.
import { sql } from 'kysely';
import type { Database } from '../../src/db/index.ts';
import { NOTIFY_CHANNEL } from '../../src/db/changes.ts';

const pause = () => new Promise((r) => setTimeout(r, 20));

/** Resolves once caching is on and every change notified so far has arrived. */
export async function untilCaching(database: Database): Promise<void> {
  for (let i = 0; i < 250 && database.changes.current() === null; i++) await pause();
  const before = database.changes.current();
  if (before === null) throw new Error('the change listener did not connect in 5 s');
  if (database.dialect !== 'postgres') return;
  // Notifications arrive in commit order: once this one is in, so are all before it. Which one
  // moved the generation is not told, so wait for it to move and then hold still a while.
  await sql`select pg_notify(${NOTIFY_CHANNEL}, 'barrier')`.execute(database.db);
  for (let i = 0; i < 250 && database.changes.current() === before; i++) await pause();
  let seen = database.changes.current();
  for (let still = 0; still < 10; still++) {
    await pause();
    if (database.changes.current() !== seen) {
      seen = database.changes.current();
      still = 0;
    }
  }
}
