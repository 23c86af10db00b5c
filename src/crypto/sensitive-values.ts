// A value that is either kept as it is or, when sensitive, sealed with the keyring and never kept
// in clear: policy set parameters and variables store theirs the same way.
import type { Database, Queryable } from '../db/index.ts';
import { errors } from '../jsonapi/errors.ts';
import { DecryptionError, type Keyring } from './keyring.ts';

/** How a row holds its value: in clear, or sealed (never both). */
export interface StoredValue {
  value: string | null;
  encryptedValue: string | null;
}

/**
 * Sealing and opening for one kind of row (`noun`, e.g. "parameter", names it in errors). The
 * row's id is the associated data: a ciphertext moved to another row will not open.
 */
export function sensitiveValues(keyring: () => Keyring, noun: string) {
  const open = (id: string, ciphertext: string): string => {
    try {
      return keyring().decrypt(ciphertext, id);
    } catch (e) {
      if (e instanceof DecryptionError) throw new DecryptionError(`${noun} ${id}: ${e.message}`);
      throw e;
    }
  };
  const toStored = (id: string, value: string, sensitive: boolean): StoredValue =>
    sensitive ? { value: null, encryptedValue: keyring().encrypt(value, id) } : { value, encryptedValue: null };
  return {
    toStored,
    /**
     * A row's value after an update (422 if it asks to make a sensitive row clear: its value is
     * gone). A new value is sealed or kept as the row now is; without one, a sealed value stays as
     * it is, and a clear one is sealed if the row became sensitive (`madeSensitive`: its clear
     * value may linger in the database's free pages until they are scrubbed).
     */
    updated(id: string, was: { sensitive: boolean; stored: StoredValue }, input: { value?: string; sensitive?: boolean }) {
      if (was.sensitive && input.sensitive === false) {
        throw errors.invalidAttribute('/data/attributes/sensitive', `A sensitive ${noun} cannot be made non-sensitive`);
      }
      const sensitive = input.sensitive ?? was.sensitive;
      let stored: StoredValue;
      if (input.value !== undefined) stored = toStored(id, input.value, sensitive);
      else if (was.sensitive) stored = was.stored;
      else stored = toStored(id, was.stored.value ?? '', sensitive);
      return { sensitive, stored, madeSensitive: sensitive && !was.sensitive };
    },
    /** Names the row when a value cannot be opened (a missing key, say); never the value. */
    open,
    /**
     * `hangar rotate-key`: re-seals every value sealed with an older key under the first key, one
     * transaction per batch (ordered by id), so a failure leaves every row readable and a rerun
     * continues where it stopped. Returns how many values were re-sealed.
     */
    async rotate(
      database: Database,
      rows: {
        stale(q: Queryable, primaryPrefix: string, afterId: string, limit: number): Promise<Array<{ id: string; encryptedValue: string }>>;
        replace(q: Queryable, id: string, ciphertext: string): Promise<void>;
      },
      batchSize: number,
    ): Promise<number> {
      const ring = keyring();
      let reencrypted = 0;
      let after = '';
      for (;;) {
        const batch = await database.transaction(async (trx) => {
          const found = await rows.stale(trx, ring.primaryPrefix, after, batchSize);
          for (const row of found) await rows.replace(trx, row.id, ring.encrypt(open(row.id, row.encryptedValue), row.id));
          return found;
        });
        reencrypted += batch.length;
        if (batch.length < batchSize) return reencrypted;
        after = batch[batch.length - 1]!.id;
      }
    },
  };
}
