// Where the database holds keyring ciphertext (`v1:<16-hex-digit key id>:…`, crypto/keyring.ts).
// A column sealed with the keyring is added here, so the start-up check that every key in use is
// configured covers it too.
import type { Queryable } from '../db/index.ts';

/** The ids of every key that sealed a value in the database, sorted. */
export async function keyIdsInUse(q: Queryable): Promise<string[]> {
  const rows = await q
    .selectFrom('policy_set_parameters')
    .select((eb) => eb.fn<string>('substr', ['encrypted_value', eb.lit(4), eb.lit(16)]).as('key_id'))
    .distinct()
    .where('encrypted_value', 'like', 'v1:%')
    .execute();
  return rows.map((r) => r.key_id).sort();
}
