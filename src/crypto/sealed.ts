// Where the database holds keyring ciphertext (`v1:<16-hex-digit key id>:…`, crypto/keyring.ts).
// A column sealed with the keyring is added here, so the start-up check that every key in use is
// configured covers it too.
import type { Queryable } from '../db/index.ts';

/** The ids of every key that sealed a value in the database, sorted. */
export async function keyIdsInUse(q: Queryable): Promise<string[]> {
  const parameters = await q
    .selectFrom('policy_set_parameters')
    .select((eb) => eb.fn<string>('substr', ['encrypted_value', eb.lit(4), eb.lit(16)]).as('key_id'))
    .distinct()
    .where('encrypted_value', 'like', 'v1:%')
    .execute();
  // Blobs on the database backend (blobs/): state, plan files, logs, archives.
  const blobs = await q.selectFrom('blobs').select('key_id').distinct().where('key_id', 'is not', null).execute();
  // State outputs (state-versions/).
  const outputs = await q
    .selectFrom('state_version_outputs')
    .select((eb) => eb.fn<string>('substr', ['sealed_value', eb.lit(4), eb.lit(16)]).as('key_id'))
    .distinct()
    .execute();
  // Sensitive workspace and variable set variables (variables/).
  const variables = await q
    .selectFrom('variables')
    .select((eb) => eb.fn<string>('substr', ['encrypted_value', eb.lit(4), eb.lit(16)]).as('key_id'))
    .distinct()
    .where('encrypted_value', 'like', 'v1:%')
    .execute();
  // Notification configurations' tokens (notification-configurations/).
  const tokens = await q
    .selectFrom('notification_configurations')
    .select((eb) => eb.fn<string>('substr', ['encrypted_token', eb.lit(4), eb.lit(16)]).as('key_id'))
    .distinct()
    .where('encrypted_token', 'like', 'v1:%')
    .execute();
  // SSH keys (ssh-keys/): every one is sealed.
  const sshKeys = await q
    .selectFrom('ssh_keys')
    .select((eb) => eb.fn<string>('substr', ['encrypted_value', eb.lit(4), eb.lit(16)]).as('key_id'))
    .distinct()
    .where('encrypted_value', 'like', 'v1:%')
    .execute();
  return [
    ...new Set([...parameters, ...blobs.map((r) => ({ key_id: r.key_id! })), ...outputs, ...variables, ...tokens, ...sshKeys].map((r) => r.key_id)),
  ].sort();
}
