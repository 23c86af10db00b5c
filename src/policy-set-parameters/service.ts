import type { Caller } from '../auth/caller.ts';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { sensitiveValues } from '../crypto/sensitive-values.ts';
import { guarded } from '../db/constraints.ts';
import type { Database } from '../db/index.ts';
import { errors } from '../jsonapi/errors.ts';
import { newId } from '../ids.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../time.ts';
import type { PolicySetsService } from '../policy-sets/service.ts';
import { checkAttributes, Key, ParameterValue } from '../values.ts';
import * as store from './store.ts';
import type { Parameter } from './store.ts';

export type { Parameter };

export interface ParameterInput {
  key?: string;
  value?: string;
  category?: 'policy-set';
  sensitive?: boolean;
}

/** What the policy-check runtime receives: real values, sensitive ones decrypted. */
export interface RuntimeParameter {
  id: string;
  key: string;
  value: string;
  sensitive: boolean;
  category: 'policy-set';
}

const check = (input: ParameterInput) => checkAttributes({ key: [Key, input.key], value: [ParameterValue, input.value] });

/**
 * The most parameters one policy set holds. With the cap on each value (values.ts), it bounds
 * every parameter list, the unpaginated one included, at about 25 MiB.
 */
export const MAX_PARAMETERS = 100;

export const ROTATION_BATCH_SIZE = 100;

/**
 * Parameters of policy sets. Sensitive values exist in clear text only in the request that
 * writes them and in `runtimeParameters`; everything else sees `value: null`.
 */
export function createPolicySetParametersService(deps: { database: Database; policySets: PolicySetsService; keyring: Keyring | null }) {
  const { database } = deps;
  const db = database.db;

  const keyring = () => loadedKeyring(deps.keyring);

  const sealing = sensitiveValues(keyring, 'parameter');
  const { toStored, open } = sealing;

  async function parameterOf(policySetId: string, id: string): Promise<Parameter> {
    const parameter = await store.findParameter(db, policySetId, id);
    if (!parameter) throw errors.notFound();
    return parameter;
  }

  return {
    async list(caller: Caller, policySetId: string, page: Page) {
      const { set } = await deps.policySets.find(caller, policySetId, 'read-policies');
      return store.listParameters(db, set.id, page);
    },

    async create(caller: Caller, policySetId: string, input: ParameterInput & { key: string }): Promise<Parameter> {
      const { set } = await deps.policySets.find(caller, policySetId, 'manage-policies');
      check(input);
      const at = now();
      const id = newId('var');
      const parameter: Parameter = {
        id,
        policySetId: set.id,
        key: input.key,
        category: 'policy-set',
        sensitive: input.sensitive ?? false,
        value: null,
        createdAt: at,
        updatedAt: at,
      };
      const value = input.value ?? '';
      const insert = database.transaction(async (trx) => {
        // Under the set's lock, so that concurrent creates cannot together pass the cap.
        if (!(await deps.policySets.lock(trx, set.id))) throw errors.notFound();
        if ((await store.countParameters(trx, set.id)) >= MAX_PARAMETERS) {
          throw errors.conflict(`A policy set holds at most ${MAX_PARAMETERS} parameters`);
        }
        await store.insertParameter(trx, parameter, toStored(id, value, parameter.sensitive));
      });
      await guarded(insert, {
        unique: () => errors.taken('key'),
        // The set was deleted while we were writing.
        foreignKey: () => errors.notFound(),
      });
      return { ...parameter, value: parameter.sensitive ? null : value };
    },

    async show(caller: Caller, policySetId: string, id: string): Promise<Parameter> {
      const { set } = await deps.policySets.find(caller, policySetId, 'read-policies');
      return parameterOf(set.id, id);
    },

    /**
     * Read-modify-write in one transaction under the row's lock, so concurrent updates apply one
     * after the other and a row never mixes the key of one with the value of another. `bodyId`,
     * when the body names the parameter at all, must be the one in the path.
     */
    async update(caller: Caller, policySetId: string, id: string, bodyId: string | undefined, input: ParameterInput): Promise<Parameter> {
      const { set } = await deps.policySets.find(caller, policySetId, 'manage-policies');
      if (bodyId !== undefined && bodyId !== id) throw errors.invalidAttribute('/data/id', 'Id must match the parameter in the request path');
      check(input);
      let madeSensitive = false;
      const updated = await guarded(
        database.transaction(async (trx) => {
          const current = await store.lockParameter(trx, set.id, id);
          if (!current) throw errors.notFound();
          const was = current.parameter;
          const next = sealing.updated(id, { sensitive: was.sensitive, stored: current.stored }, input);
          const { sensitive, stored } = next;
          madeSensitive = next.madeSensitive;
          const key = input.key ?? was.key;
          const updatedAt = now();
          await store.updateParameter(trx, id, { key, sensitive, stored, updatedAt });
          return { ...was, key, sensitive, value: sensitive ? null : stored.value, updatedAt };
        }),
        { unique: () => errors.taken('key') },
      );
      // The clear value this replaced must not linger where the database keeps old content.
      if (madeSensitive) await database.scrub();
      return updated;
    },

    async destroy(caller: Caller, policySetId: string, id: string): Promise<void> {
      const { set } = await deps.policySets.find(caller, policySetId, 'manage-policies');
      if ((await store.deleteParameter(db, set.id, id)) === 0) throw errors.notFound();
    },

    /**
     * For the policy-check runtime (no HTTP route, no caller): every parameter of a set with its
     * real value. Whoever calls this must keep the values out of logs and responses.
     */
    async runtimeParameters(policySetId: string): Promise<RuntimeParameter[]> {
      if (!(await deps.policySets.findById(policySetId))) throw errors.notFound();
      const rows = await store.storedParameters(db, policySetId);
      return rows.map(({ parameter: p, stored }) => ({
        id: p.id,
        key: p.key,
        category: p.category,
        sensitive: p.sensitive,
        value: p.sensitive ? open(p.id, stored.encryptedValue ?? '') : (stored.value ?? ''),
      }));
    },

    /**
     * `hangar rotate-key`: re-encrypts every value sealed with an older key under the first
     * configured key, one transaction per batch, so a failure leaves every row readable and a
     * rerun continues where it stopped.
     */
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

export type PolicySetParametersService = ReturnType<typeof createPolicySetParametersService>;
