import type { Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { sealedRows } from '../db/sealed-rows.ts';
import { bool, columns, typed } from '../db/columns.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { VariablesTable } from '../db/schema.ts';
import { supportsRowLocks } from '../db/sql.ts';

export type Category = 'terraform' | 'env';

/** Whose variable it is: a workspace's own, or a variable set's. */
export type Owner = { workspaceId: string } | { setId: string };

/** A variable as the API shows it: a sensitive one carries no value at all. */
export interface Variable {
  id: string;
  workspaceId: string | null;
  setId: string | null;
  key: string;
  category: Category;
  description: string;
  hcl: boolean;
  sensitive: boolean;
  /** Null exactly when `sensitive`. */
  value: string | null;
  versionId: string;
  createdAt: string;
  updatedAt: string;
}

/** The value as stored: clear text, or ciphertext for a sensitive variable; never both. */
export interface StoredValue {
  value: string | null;
  encryptedValue: string | null;
}

const VARIABLES = columns<VariablesTable, Variable>({
  id: 'id',
  workspaceId: 'workspace_id',
  setId: 'variable_set_id',
  key: 'key',
  category: typed<Category>()('category'),
  description: 'description',
  hcl: bool('hcl'),
  sensitive: bool('sensitive'),
  // Not a column of its own: the clear value, which a sensitive variable never shows.
  value: { computed: (r: Selectable<VariablesTable>) => (r.sensitive ? null : (r.value ?? '')) },
  versionId: 'version_id',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});

const stored = (r: Selectable<VariablesTable>): StoredValue => ({ value: r.value, encryptedValue: r.encrypted_value });

const owned = (owner: Owner) => ('workspaceId' in owner ? (['workspace_id', owner.workspaceId] as const) : (['variable_set_id', owner.setId] as const));

/** `v.value` is not written: `s` says what is stored, clear text or ciphertext. */
export async function insertVariable(q: Queryable, v: Variable, s: StoredValue): Promise<void> {
  await q
    .insertInto('variables')
    .values({ ...VARIABLES.write(v), value: s.value, encrypted_value: s.encryptedValue })
    .execute();
}

export async function findVariable(q: Queryable, owner: Owner, id: string): Promise<Variable | undefined> {
  const [column, ownerId] = owned(owner);
  const r = await q.selectFrom('variables').selectAll().where('id', '=', id).where(column, '=', ownerId).executeTakeFirst();
  return r && VARIABLES.read(r);
}

/** A variable by id alone, whoever owns it (the older `/vars/:id` routes find the workspace from it). */
export async function findVariableById(q: Queryable, id: string): Promise<Variable | undefined> {
  const r = await q.selectFrom('variables').selectAll().where('id', '=', id).executeTakeFirst();
  return r && VARIABLES.read(r);
}

/** The variable and its stored value, its row held until the transaction ends (PostgreSQL). */
export async function lockVariable(q: Queryable, owner: Owner, id: string) {
  const [column, ownerId] = owned(owner);
  let query = q.selectFrom('variables').selectAll().where('id', '=', id).where(column, '=', ownerId);
  if (supportsRowLocks(q)) query = query.forUpdate();
  const r = await query.executeTakeFirst();
  return r && { variable: VARIABLES.read(r), stored: stored(r) };
}

/** In creation order. */
export async function listVariables(q: Queryable, owner: Owner, page: Window) {
  const [column, ownerId] = owned(owner);
  const base = q.selectFrom('variables').where(column, '=', ownerId);
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, VARIABLES.read);
}

/** Every variable of a workspace and of the given sets, with stored values (one query). */
export async function variablesOf(q: Queryable, workspaceId: string, setIds: readonly string[]) {
  const rows = await q
    .selectFrom('variables')
    .selectAll()
    .where((eb) => eb.or([eb('workspace_id', '=', workspaceId), ...(setIds.length ? [eb('variable_set_id', 'in', [...setIds])] : [])]))
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ variable: VARIABLES.read(r), stored: stored(r) }));
}

/** Owner id → the ids of its variables, oldest first (one query). */
export async function idsByOwner(q: Queryable, column: 'workspace_id' | 'variable_set_id', ownerIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(ownerIds.map((id) => [id, []]));
  if (ownerIds.length === 0) return result;
  const rows = await q
    .selectFrom('variables')
    .select(['id', column])
    .where(column, 'in', [...ownerIds])
    .orderBy('seq')
    .execute();
  for (const r of rows) result.get((r as Record<string, string>)[column]!)?.push(r.id);
  return result;
}

export async function updateVariable(
  q: Queryable,
  id: string,
  v: Pick<Variable, 'key' | 'category' | 'description' | 'hcl' | 'sensitive' | 'versionId' | 'updatedAt'> & { stored: StoredValue },
): Promise<void> {
  await q
    .updateTable('variables')
    .set({
      key: v.key,
      category: v.category,
      description: v.description,
      hcl: v.hcl,
      sensitive: v.sensitive,
      value: v.stored.value,
      encrypted_value: v.stored.encryptedValue,
      version_id: v.versionId,
      updated_at: v.updatedAt,
    })
    .where('id', '=', id)
    .execute();
}

export async function deleteVariable(q: Queryable, owner: Owner, id: string): Promise<number> {
  const [column, ownerId] = owned(owner);
  const r = await q.deleteFrom('variables').where('id', '=', id).where(column, '=', ownerId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export const { staleCiphertexts, replaceCiphertext } = sealedRows('variables');
