import type { Queryable } from '../db/index.ts';
import { columns } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { SshKeysTable } from '../db/schema.ts';
import { supportsRowLocks } from '../db/sql.ts';

/** An SSH key as the API knows it: never its value, which only `sealedValue` reads. */
export interface SshKey {
  id: string;
  organizationId: string;
  name: string;
  createdAt: string;
  updatedAt: string;
}

// Over the columns reads select: the sealed value is written beside them and read only by `sealedValue`.
const SSH_KEYS = columns<Omit<SshKeysTable, 'encrypted_value' | 'seq'>, SshKey>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});

/** What reads select: every column but the sealed value, so that it travels only where it is opened. */
const SHOWN = ['id', 'organization_id', 'name', 'created_at', 'updated_at'] as const;

export async function insertSshKey(q: Queryable, k: SshKey, encryptedValue: string): Promise<void> {
  await q
    .insertInto('ssh_keys')
    .values({ ...SSH_KEYS.write(k), encrypted_value: encryptedValue })
    .execute();
}

export async function findSshKey(q: Queryable, id: string): Promise<SshKey | undefined> {
  const r = await q.selectFrom('ssh_keys').select(SHOWN).where('id', '=', id).executeTakeFirst();
  return r && SSH_KEYS.read(r);
}

/** The key, its row held until the transaction ends (PostgreSQL), so an update and a delete take turns. */
export async function lockSshKey(q: Queryable, id: string): Promise<SshKey | undefined> {
  let query = q.selectFrom('ssh_keys').select(SHOWN).where('id', '=', id);
  if (supportsRowLocks(q)) query = query.forUpdate();
  const r = await query.executeTakeFirst();
  return r && SSH_KEYS.read(r);
}

/** The organization's keys, a page of them in creation order, and how many there are. */
export async function listSshKeys(q: Queryable, organizationId: string, page: Window) {
  const base = q.selectFrom('ssh_keys').where('organization_id', '=', organizationId);
  return listWithTotal(base, base.select(SHOWN).orderBy('seq'), page, SSH_KEYS.read);
}

export async function updateSshKey(q: Queryable, id: string, patch: { name?: string; encryptedValue?: string; updatedAt: string }): Promise<void> {
  await q
    .updateTable('ssh_keys')
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.encryptedValue !== undefined ? { encrypted_value: patch.encryptedValue } : {}),
      updated_at: patch.updatedAt,
    })
    .where('id', '=', id)
    .execute();
}

/** Deletes the key; the database unassigns it from its workspaces (ON DELETE SET NULL). */
export async function deleteSshKey(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('ssh_keys').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** The key's sealed value: for the runs of the workspaces it is assigned to, nothing else. */
export async function sealedValue(q: Queryable, id: string): Promise<string | undefined> {
  const r = await q.selectFrom('ssh_keys').select('encrypted_value').where('id', '=', id).executeTakeFirst();
  return r?.encrypted_value;
}

/** `hangar rotate-key`: the next `limit` keys after `afterId` sealed with another key than `currentPrefix` names, locked on PostgreSQL. */
export async function staleCiphertexts(q: Queryable, currentPrefix: string, afterId: string, limit: number) {
  let query = q
    .selectFrom('ssh_keys')
    .select(['id', 'encrypted_value'])
    .where('id', '>', afterId)
    .where((eb) => eb.not(eb('encrypted_value', 'like', `${currentPrefix}%`)))
    .orderBy('id')
    .limit(limit);
  if (supportsRowLocks(q)) query = query.forUpdate();
  return (await query.execute()).map((r) => ({ id: r.id, encryptedValue: r.encrypted_value }));
}

export async function replaceCiphertext(q: Queryable, id: string, encryptedValue: string): Promise<void> {
  await q.updateTable('ssh_keys').set({ encrypted_value: encryptedValue }).where('id', '=', id).execute();
}
