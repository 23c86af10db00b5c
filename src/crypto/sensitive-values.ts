// A value that is either kept as it is or, when sensitive, sealed with the keyring and never kept
// in clear: policy set parameters and variables store theirs the same way.
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
  return {
    toStored(id: string, value: string, sensitive: boolean): StoredValue {
      return sensitive ? { value: null, encryptedValue: keyring().encrypt(value, id) } : { value, encryptedValue: null };
    },
    /** Names the row when a value cannot be opened (a missing key, say); never the value. */
    open(id: string, ciphertext: string): string {
      try {
        return keyring().decrypt(ciphertext, id);
      } catch (e) {
        if (e instanceof DecryptionError) throw new DecryptionError(`${noun} ${id}: ${e.message}`);
        throw e;
      }
    },
  };
}
