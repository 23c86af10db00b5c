// SSH keys, as TFE has them: an organization's named private keys, and the one a workspace's runs
// clone modules with. The key is write-only: it exists in clear text only in the request that
// writes it and in `forRun`, which hands it to the runner of that workspace's job; everywhere
// else it is sealed (crypto/keyring.ts, the row's id as associated data). Managing keys needs
// TFE's "manage VCS settings"; reading their names, that or organization-wide workspace admin;
// assigning one to a workspace is a setting of the workspace (`update-workspace`), and the key
// must be its organization's.
import type { Caller } from '../auth/caller.ts';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { sensitiveValues } from '../crypto/sensitive-values.ts';
import { guarded } from '../db/constraints.ts';
import type { Database } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import { now } from '../time.ts';
import { checkAttributes, SshKeyName, SshKeyValue } from '../values.ts';
import type { WorkspaceBase, WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { SshKey } from './store.ts';

export type { SshKey };

/** A key as the API shows it: with its organization's name (its JSON:API id). */
export interface SshKeyView {
  key: SshKey;
  organizationName: string;
}

export interface SshKeyInput {
  name?: string;
  value?: string;
}

/** How many keys are re-sealed per transaction by `hangar rotate-key`. */
export const ROTATION_BATCH_SIZE = 100;

const KEY_ID = '/data/attributes/id';

const check = (input: SshKeyInput) => checkAttributes({ name: [SshKeyName, input.name], value: [SshKeyValue, input.value] });

export function createSshKeysService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  workspaces: WorkspacesService;
  keyring: Keyring | null;
}) {
  const { database, organizationLookup, workspaces } = deps;
  const db = database.db;
  const keyring = () => loadedKeyring(deps.keyring);
  // Every key is sealed: `toStored(…, true)` never keeps a clear value.
  const sealing = sensitiveValues(keyring, 'SSH key');
  const seal = (id: string, value: string) => sealing.toStored(id, value, true).encryptedValue!;

  /** The key if the caller may perform `action` in its organization; 404 when it is not there for the caller. */
  async function find(caller: Caller, id: string, action: 'read-ssh-keys' | 'manage-ssh-keys'): Promise<SshKeyView> {
    const key = hasPrefix(id, 'sshkey') ? await store.findSshKey(db, id) : undefined;
    if (!key) throw errors.notFound();
    const { org } = await organizationLookup.findById(caller, key.organizationId, action);
    return { key, organizationName: org.name };
  }

  return {
    async list(caller: Caller, organizationName: string, page: Page): Promise<{ items: SshKeyView[]; total: number }> {
      const { org } = await organizationLookup.find(caller, organizationName, 'read-ssh-keys');
      const { items, total } = await store.listSshKeys(db, org.id, page);
      return { items: items.map((key) => ({ key, organizationName: org.name })), total };
    },

    async create(caller: Caller, organizationName: string, input: SshKeyInput): Promise<SshKeyView> {
      const { org } = await organizationLookup.find(caller, organizationName, 'manage-ssh-keys');
      const problems: Array<{ pointer: string; detail: string }> = [];
      if (input.name === undefined) problems.push({ pointer: '/data/attributes/name', detail: "Name can't be blank" });
      if (input.value === undefined) problems.push({ pointer: '/data/attributes/value', detail: "Value can't be blank" });
      if (problems.length) throw errors.invalid(problems);
      check(input);
      const at = now();
      const key: SshKey = { id: newId('sshkey'), organizationId: org.id, name: input.name!, createdAt: at, updatedAt: at };
      // The organization was deleted a moment ago.
      await guarded(store.insertSshKey(db, key, seal(key.id, input.value!)), { foreignKey: () => errors.notFound() });
      return { key, organizationName: org.name };
    },

    show: (caller: Caller, id: string): Promise<SshKeyView> => find(caller, id, 'read-ssh-keys'),

    /** A new name, a new value (a rotated key), or both; under the row's lock, so a delete cannot slip in between. */
    async update(caller: Caller, id: string, input: SshKeyInput): Promise<SshKeyView> {
      const found = await find(caller, id, 'manage-ssh-keys');
      check(input);
      const updatedAt = now();
      const key = await database.transaction(async (trx) => {
        const current = await store.lockSshKey(trx, found.key.id);
        if (!current) throw errors.notFound();
        const encryptedValue = input.value === undefined ? undefined : seal(current.id, input.value);
        await store.updateSshKey(trx, current.id, { name: input.name, encryptedValue, updatedAt });
        return { ...current, name: input.name ?? current.name, updatedAt };
      });
      return { key, organizationName: found.organizationName };
    },

    /** TFE: a deleted key is unassigned from every workspace (the foreign key's ON DELETE SET NULL). */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { key } = await find(caller, id, 'manage-ssh-keys');
      if ((await store.deleteSshKey(db, key.id)) === 0) throw errors.notFound();
    },

    /**
     * `PATCH /workspaces/:id/relationships/ssh-key`: assigns the key (`keyId`) or, with null,
     * unassigns it. A key of another organization, or none at all, is not found at the pointer,
     * as a key the caller could not otherwise learn of.
     */
    async assign(caller: Caller, workspaceId: string, keyId: string | null | undefined): Promise<WorkspaceBase> {
      const found = await workspaces.find(caller, { id: workspaceId }, 'update-workspace');
      if (keyId === undefined) throw errors.invalidAttribute(KEY_ID, 'An SSH key id (or null, to unassign the key) is required');
      let sshKeyId: string | null = null;
      if (keyId !== null) {
        const key = hasPrefix(keyId, 'sshkey') ? await store.findSshKey(db, keyId) : undefined;
        if (!key || key.organizationId !== found.org.id) throw errors.invalidAttribute(KEY_ID, "SSH key not found in the workspace's organization");
        sshKeyId = key.id;
      }
      // A key deleted a moment ago fails the foreign key: the same answer as one never there.
      await guarded(workspaces.setSshKey(db, found.workspace.id, sshKeyId), {
        foreignKey: () => errors.invalidAttribute(KEY_ID, "SSH key not found in the workspace's organization"),
      });
      return workspaces.view({ ...found, workspace: { ...found.workspace, sshKeyId } });
    },

    /**
     * For a run of the workspace, without a caller (the runner acts for the run): the private key
     * its workspace names, in clear text, or null. Only the job protocol calls this.
     */
    async forRun(workspaceId: string): Promise<string | null> {
      const [workspace] = await workspaces.rows([workspaceId]);
      if (!workspace?.sshKeyId) return null;
      const sealed = await store.sealedValue(db, workspace.sshKeyId);
      return sealed === undefined ? null : sealing.open(workspace.sshKeyId, sealed);
    },

    /** `hangar rotate-key`: re-seals every key sealed with an older key under the first one, batch by batch. */
    async rotateEncryption(options: { batchSize?: number } = {}): Promise<{ reencrypted: number; keyId: string }> {
      const reencrypted = await sealing.rotate(
        database,
        { stale: store.staleCiphertexts, replace: store.replaceCiphertext },
        options.batchSize ?? ROTATION_BATCH_SIZE,
      );
      return { reencrypted, keyId: keyring().primaryKeyId };
    },
  };
}

export type SshKeysService = ReturnType<typeof createSshKeysService>;
