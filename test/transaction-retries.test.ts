// PostgreSQL aborts one of two transactions that wait on each other. Two renames that swap names
// do: each waits for the other to finish with the name it gives up, in the unique index of
// names, and no lock order prevents it. The aborted one runs again (db/index.ts), so the client
// gets what it would have got had the two come one after the other, never a 5xx.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { suite } from './helpers/harness.ts';
import { createProject } from './helpers/projects.ts';

suite('transactions PostgreSQL aborts', (ctx) => {
  it(
    'run again after a deadlock, and end as if run one after the other',
    { skip: ctx.dialect === 'sqlite' && 'SQLite runs one writer at a time' },
    async () => {
      const org = await ctx.organization();
      const [a, b, c, d] = await Promise.all(['swap-a', 'swap-b', 'swap-c', 'swap-d'].map((name) => createProject(ctx, org, { name })));
      let arrived = 0;
      let bothHold!: () => void;
      const holding = new Promise<void>((resolve) => (bothHold = resolve));
      const attempts = { first: 0, second: 0 };
      // Each gives up one name and then takes the name the other gives up, while the other still
      // holds it uncommitted: a cycle. On a second attempt the barrier is passed at once. The names
      // given in exchange share no one- or two-character gram, so that the first renames do not
      // wait on each other's name-gram counters (migration 0014) before the barrier.
      const swap = (key: keyof typeof attempts, own: string, gives: string, other: string, takes: string) =>
        ctx.database.transaction(async (trx) => {
          attempts[key]++;
          await sql`UPDATE projects SET name = ${gives} WHERE id = ${own}`.execute(trx);
          if (++arrived === 2) bothHold();
          await holding;
          await sql`UPDATE projects SET name = ${takes} WHERE id = ${other}`.execute(trx);
        });
      const outcomes = await Promise.allSettled([swap('first', a!.id, 'swap-ax', c!.id, 'swap-b'), swap('second', b!.id, 'swap-by', d!.id, 'swap-a')]);
      const codes = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code?: string }).code : 'committed'));
      // The one PostgreSQL aborted ran again; the other found its name still taken (the aborted
      // transaction gave it back), as it would have done one after the other.
      assert.ok(!codes.includes('40P01'), `no deadlock reaches the caller: ${codes.join(', ')}`);
      assert.deepEqual(codes, ['23505', '23505']);
      assert.equal(attempts.first + attempts.second, 3, 'one of the two ran twice');
      const names = await ctx.database.db.selectFrom('projects').select('name').where('id', 'in', [a!.id, b!.id, c!.id, d!.id]).orderBy('name').execute();
      assert.deepEqual(
        names.map((r) => r.name),
        ['swap-a', 'swap-b', 'swap-c', 'swap-d'],
      );
    },
  );
});
