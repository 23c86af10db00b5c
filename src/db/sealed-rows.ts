// Key rotation's queries over a table whose rows hold a value that is either clear or, when
// `sensitive`, sealed in `encrypted_value` (crypto/sensitive-values.ts): variables and policy set
// parameters. Each store names its own table.
import type { Queryable } from './index.ts';
import { supportsRowLocks } from './sql.ts';

export function sealedRows(table: 'variables' | 'policy_set_parameters') {
  return {
    /** The next `limit` sensitive rows after `afterId` sealed with another key than `currentPrefix` names, locked on PostgreSQL. */
    async staleCiphertexts(q: Queryable, currentPrefix: string, afterId: string, limit: number) {
      let query = q
        .selectFrom(table)
        .select(['id', 'encrypted_value'])
        .where('sensitive', '=', true)
        .where('id', '>', afterId)
        .where((eb) => eb.not(eb('encrypted_value', 'like', `${currentPrefix}%`)))
        .orderBy('id')
        .limit(limit);
      if (supportsRowLocks(q)) query = query.forUpdate();
      const rows = await query.execute();
      return rows.map((r) => ({ id: r.id, encryptedValue: r.encrypted_value ?? '' }));
    },

    async replaceCiphertext(q: Queryable, id: string, encryptedValue: string): Promise<void> {
      await q.updateTable(table).set({ encrypted_value: encryptedValue }).where('id', '=', id).execute();
    },
  };
}
