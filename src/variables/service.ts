import { randomBytes } from 'node:crypto';
import type { Caller } from '../auth/caller.ts';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { sensitiveValues } from '../crypto/sensitive-values.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../time.ts';
import type { AppliedSet, VariableSetsService } from '../variable-sets/service.ts';
import { checkAttributes, Description, Key, ParameterValue } from '../values.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { Category, Owner, Variable } from './store.ts';

export type { Category, Variable };

export interface VariableInput {
  key?: string;
  value?: string;
  description?: string;
  category?: Category;
  hcl?: boolean;
  sensitive?: boolean;
}

/** What a run receives: the workspace's effective variables, sensitive values in clear text. */
export interface RunVariable {
  key: string;
  value: string;
  category: Category;
  hcl: boolean;
  sensitive: boolean;
}

export const VARIABLE_DESCRIPTION_MAX = 512;
/** A well-formed workspace id no workspace has (ids are random; this one is never issued in practice). */
const NO_WORKSPACE = 'ws-0000000000000000';
export const ROTATION_BATCH_SIZE = 100;

const check = (input: VariableInput) =>
  checkAttributes({ key: [Key, input.key], value: [ParameterValue, input.value], description: [Description(VARIABLE_DESCRIPTION_MAX), input.description] });

/** TFE's version-id: changes with every write, so a client can tell a variable was touched. */
const newVersionId = () => randomBytes(20).toString('hex');

/**
 * Where a variable comes from, for precedence: the workspace itself, or a set applied to it.
 * TFE's order, highest first: priority global sets, priority project-scoped sets, priority
 * workspace-scoped sets, (the command line), the workspace's own variables, workspace-scoped
 * sets, project-scoped sets, global sets. Lower rank wins.
 */
export function precedenceRank(source: { set: null } | { set: Pick<AppliedSet, 'priority' | 'scope'> }): number {
  if (source.set === null) return 6;
  const { priority, scope } = source.set;
  if (priority) return { global: 1, project: 2, workspace: 3 }[scope];
  return { workspace: 7, project: 8, global: 9 }[scope];
}

/**
 * The effective variables: per (category, key) the one of lowest rank; between two sets of the
 * same rank, the set whose name sorts first (TFE: lexical order of set names), then the older.
 */
export function effective<V extends { key: string; category: Category; setId: string | null }>(variables: readonly V[], sets: readonly AppliedSet[]): V[] {
  const setsById = new Map(sets.map((s) => [s.id, s]));
  const rankOf = (v: V) => precedenceRank({ set: v.setId === null ? null : setsById.get(v.setId)! });
  const beats = (a: V, b: V) => {
    const ra = rankOf(a);
    const rb = rankOf(b);
    if (ra !== rb) return ra < rb;
    const na = a.setId === null ? '' : setsById.get(a.setId)!.name;
    const nb = b.setId === null ? '' : setsById.get(b.setId)!.name;
    return na < nb;
  };
  const winners = new Map<string, V>();
  for (const v of variables) {
    if (v.setId !== null && !setsById.has(v.setId)) continue;
    const slot = `${v.category}\u0000${v.key}`;
    const held = winners.get(slot);
    if (!held || beats(v, held)) winners.set(slot, v);
  }
  return [...winners.values()];
}

/**
 * Workspace variables and variable set variables. Sensitive values exist in clear text only in
 * the request that writes them and in `forRun`; everything else sees `value: null`.
 */
export function createVariablesService(deps: {
  database: Database;
  workspaces: WorkspacesService;
  variableSets: VariableSetsService;
  keyring: Keyring | null;
}) {
  const { database } = deps;
  const db = database.db;
  const keyring = () => loadedKeyring(deps.keyring);

  const sealing = sensitiveValues(keyring, 'variable');
  const { toStored, open } = sealing;

  const taken = () => errors.taken('key');

  async function create(owner: Owner, input: VariableInput & { key: string; category: Category }): Promise<Variable> {
    check(input);
    const at = now();
    const id = newId('var');
    const variable: Variable = {
      id,
      workspaceId: 'workspaceId' in owner ? owner.workspaceId : null,
      setId: 'setId' in owner ? owner.setId : null,
      key: input.key,
      category: input.category,
      description: input.description ?? '',
      hcl: input.hcl ?? false,
      sensitive: input.sensitive ?? false,
      value: null,
      versionId: newVersionId(),
      createdAt: at,
      updatedAt: at,
    };
    const value = input.value ?? '';
    // The owner was deleted while we were writing: as absent as it is now.
    await guarded(store.insertVariable(db, variable, toStored(id, value, variable.sensitive)), { unique: taken, foreignKey: () => errors.notFound() });
    return { ...variable, value: variable.sensitive ? null : value };
  }

  async function show(owner: Owner, id: string): Promise<Variable> {
    const variable = await store.findVariable(db, owner, id);
    if (!variable) throw errors.notFound();
    return variable;
  }

  /**
   * Read-modify-write in one transaction under the row's lock, so concurrent updates apply one
   * after the other. Every update, even one that changes nothing, gets a new version id (go-tfe).
   */
  async function update(owner: Owner, id: string, input: VariableInput): Promise<Variable> {
    check(input);
    let madeSensitive = false;
    const updated = await guarded(
      database.transaction(async (trx) => {
        const current = await store.lockVariable(trx, owner, id);
        if (!current) throw errors.notFound();
        const was = current.variable;
        const value = sealing.updated(id, { sensitive: was.sensitive, stored: current.stored }, input);
        const { sensitive, stored } = value;
        madeSensitive = value.madeSensitive;
        const next = {
          key: input.key ?? was.key,
          category: input.category ?? was.category,
          description: input.description ?? was.description,
          hcl: input.hcl ?? was.hcl,
          sensitive,
          versionId: newVersionId(),
          updatedAt: now(),
        };
        await store.updateVariable(trx, id, { ...next, stored });
        return { ...was, ...next, value: sensitive ? null : stored.value };
      }),
      { unique: taken },
    );
    // The clear value this replaced must not linger where the database keeps old content.
    if (madeSensitive) await database.scrub();
    return updated;
  }

  async function destroy(owner: Owner, id: string): Promise<void> {
    if ((await store.deleteVariable(db, owner, id)) === 0) throw errors.notFound();
  }

  /** The workspace's own variables and those of every set applied to it, with stored values, and the sets. */
  async function candidates(q: Queryable, w: { id: string; organizationId: string; projectId: string }) {
    const sets = await deps.variableSets.applyingTo(w, q);
    const rows = await store.variablesOf(
      q,
      w.id,
      sets.map((s) => s.id),
    );
    return { sets, rows };
  }

  const ws = async (caller: Caller, workspaceId: string, action: 'read-variables' | 'write-variables'): Promise<Owner> => {
    const found = await deps.workspaces.find(caller, { id: workspaceId }, action);
    return { workspaceId: found.workspace.id };
  };
  /**
   * The older `/vars/:id` routes: the workspace the variable belongs to (a set's variable is not
   * found there). A missing variable still goes on to look for a workspace that cannot exist, so
   * that its 404 costs what one for another organization's variable does (no timing tells them apart).
   */
  const workspaceOf = async (id: string): Promise<string> => {
    const variable = hasPrefix(id, 'var') ? await store.findVariableById(db, id) : undefined;
    return variable?.workspaceId ?? NO_WORKSPACE;
  };
  const set = async (caller: Caller, setId: string, mode: 'read' | 'manage'): Promise<Owner> => ({
    setId: (await deps.variableSets.find(caller, setId, mode)).set.id,
  });

  // Every view of a workspace and of a set lists its variables' ids.
  deps.variableSets.useVariableIdsReader((q, ids) => store.idsByOwner(q, 'variable_set_id', ids));

  return {
    list: async (caller: Caller, workspaceId: string, page: Page) => store.listVariables(db, await ws(caller, workspaceId, 'read-variables'), page),
    create: async (caller: Caller, workspaceId: string, input: VariableInput & { key: string; category: Category }) =>
      create(await ws(caller, workspaceId, 'write-variables'), input),
    show: async (caller: Caller, workspaceId: string, id: string) => show(await ws(caller, workspaceId, 'read-variables'), id),
    update: async (caller: Caller, workspaceId: string, id: string, input: VariableInput) =>
      update(await ws(caller, workspaceId, 'write-variables'), id, input),
    destroy: async (caller: Caller, workspaceId: string, id: string) => destroy(await ws(caller, workspaceId, 'write-variables'), id),

    /** TFE's older routes: `/vars?filter[organization][name]=…&filter[workspace][name]=…` and `/vars/:id`. */
    legacy: {
      async list(caller: Caller, organizationName: string, workspaceName: string, page: Page) {
        const found = await deps.workspaces.find(caller, { organizationName, name: workspaceName }, 'read-variables');
        return store.listVariables(db, { workspaceId: found.workspace.id }, page);
      },
      update: async (caller: Caller, id: string, input: VariableInput) => update(await ws(caller, await workspaceOf(id), 'write-variables'), id, input),
      destroy: async (caller: Caller, id: string) => destroy(await ws(caller, await workspaceOf(id), 'write-variables'), id),
    },

    /** The variables of a variable set: read and managed as the set is. */
    inSet: {
      list: async (caller: Caller, setId: string, page: Page) => store.listVariables(db, await set(caller, setId, 'read'), page),
      create: async (caller: Caller, setId: string, input: VariableInput & { key: string; category: Category }) =>
        create(await set(caller, setId, 'manage'), input),
      show: async (caller: Caller, setId: string, id: string) => show(await set(caller, setId, 'read'), id),
      update: async (caller: Caller, setId: string, id: string, input: VariableInput) => update(await set(caller, setId, 'manage'), id, input),
      destroy: async (caller: Caller, setId: string, id: string) => destroy(await set(caller, setId, 'manage'), id),
    },

    /** `GET /workspaces/:id/all-vars`: the variables a run of the workspace would get, values hidden as ever. */
    async effectiveFor(caller: Caller, workspaceId: string): Promise<Variable[]> {
      const { workspace } = await deps.workspaces.find(caller, { id: workspaceId }, 'read-variables');
      const { sets, rows } = await candidates(db, workspace);
      return effective(
        rows.map((r) => r.variable),
        sets,
      );
    },

    /**
     * For runs (no caller): the workspace's effective variables after TFE's precedence, sensitive
     * values decrypted. Whoever calls this must keep the values out of logs and responses.
     */
    async forRun(workspaceId: string): Promise<RunVariable[]> {
      const [workspace] = await deps.workspaces.rows([workspaceId]);
      if (!workspace) throw errors.notFound();
      const { sets, rows } = await candidates(db, workspace);
      const stored = new Map(rows.map((r) => [r.variable.id, r.stored]));
      return effective(
        rows.map((r) => r.variable),
        sets,
      ).map((v) => {
        const s = stored.get(v.id)!;
        return {
          key: v.key,
          category: v.category,
          hcl: v.hcl,
          sensitive: v.sensitive,
          value: v.sensitive ? open(v.id, s.encryptedValue ?? '') : (s.value ?? ''),
        };
      });
    },

    /** `hangar rotate-key`: re-seals every sensitive value under the first key, batch by batch. */
    async rotateEncryption(options: { batchSize?: number } = {}): Promise<number> {
      const reencrypted = await sealing.rotate(
        database,
        { stale: store.staleCiphertexts, replace: store.replaceCiphertext },
        options.batchSize ?? ROTATION_BATCH_SIZE,
      );
      return reencrypted;
    },
  };
}

export type VariablesService = ReturnType<typeof createVariablesService>;
