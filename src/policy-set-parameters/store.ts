import type { Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { sealedRows } from '../db/sealed-rows.ts';
import { bool, columns, typed } from '../db/columns.ts';
import { countedPages } from '../db/counted-page.ts';
import { countOf, type Window } from '../db/list.ts';
import type { PolicySetParametersTable } from '../db/schema.ts';
import { supportsRowLocks } from '../db/sql.ts';

/** A parameter as the API shows it: a sensitive one carries no value at all. */
export interface Parameter {
  id: string;
  policySetId: string;
  key: string;
  category: 'policy-set';
  sensitive: boolean;
  /** Null exactly when `sensitive`. */
  value: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The value as stored: clear text, or ciphertext for a sensitive parameter; never both. */
export interface StoredValue {
  value: string | null;
  encryptedValue: string | null;
}

const PARAMETERS = columns<PolicySetParametersTable, Parameter>({
  id: 'id',
  policySetId: 'policy_set_id',
  key: 'key',
  category: typed<'policy-set'>()('category'),
  sensitive: bool('sensitive'),
  // Not a column of its own: the clear value, which a sensitive parameter never shows.
  value: { computed: (r: Selectable<PolicySetParametersTable>) => (r.sensitive ? null : (r.value ?? '')) },
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});

const stored = (r: Selectable<PolicySetParametersTable>): StoredValue => ({ value: r.value, encryptedValue: r.encrypted_value });

/** `p.value` is not written: `v` says what is stored, clear text or ciphertext. */
export async function insertParameter(q: Queryable, p: Parameter, v: StoredValue): Promise<void> {
  await q
    .insertInto('policy_set_parameters')
    .values({ ...PARAMETERS.write(p), value: v.value, encrypted_value: v.encryptedValue })
    .execute();
}

export async function findParameter(q: Queryable, policySetId: string, id: string): Promise<Parameter | undefined> {
  const r = await q.selectFrom('policy_set_parameters').selectAll().where('id', '=', id).where('policy_set_id', '=', policySetId).executeTakeFirst();
  return r && PARAMETERS.read(r);
}

/** The parameter and its stored value, its row held until the transaction ends (PostgreSQL). */
export async function lockParameter(q: Queryable, policySetId: string, id: string) {
  let query = q.selectFrom('policy_set_parameters').selectAll().where('id', '=', id).where('policy_set_id', '=', policySetId);
  if (supportsRowLocks(q)) query = query.forUpdate();
  const r = await query.executeTakeFirst();
  return r && { parameter: PARAMETERS.read(r), stored: stored(r) };
}

/** What a list reads of a parameter: never `encrypted_value`, which only the runtime opens. */
const LISTED_COLUMNS = ['id', 'policy_set_id', 'key', 'category', 'sensitive', 'value', 'created_at', 'updated_at'] as const;

const parameterPages = countedPages<Pick<Selectable<PolicySetParametersTable>, (typeof LISTED_COLUMNS)[number]>>();

/**
 * Oldest first, and the set's parameter count beside each row: one statement (a page past the
 * end: one more for the count), compiled once per set and window.
 */
export async function listParameters(q: Queryable, policySetId: string, page: Window) {
  const base = () => q.selectFrom('policy_set_parameters').where('policy_set_id', '=', policySetId);
  const total = () => base().select((eb) => eb.fn.countAll<number>().as('n'));
  const { rows, total: count } = await parameterPages(q, JSON.stringify([policySetId, page.size, page.offset]), {
    page: () =>
      base()
        .select([...LISTED_COLUMNS, total().as('total_count')])
        .orderBy('seq')
        .limit(page.size)
        .offset(page.offset),
    total: () => q.selectNoFrom(total().as('total_count')),
  });
  // The reader reads the columns it maps, which the page selects (the value computed from two of them).
  return { items: rows.map((r) => PARAMETERS.read(r as unknown as Selectable<PolicySetParametersTable>)), total: count };
}

export async function countParameters(q: Queryable, policySetId: string): Promise<number> {
  return countOf(q.selectFrom('policy_set_parameters').where('policy_set_id', '=', policySetId));
}

/** Every parameter of a set with its stored value, for the policy-check runtime. */
export async function storedParameters(q: Queryable, policySetId: string) {
  const rows = await q.selectFrom('policy_set_parameters').selectAll().where('policy_set_id', '=', policySetId).orderBy('seq').execute();
  return rows.map((r) => ({ parameter: PARAMETERS.read(r), stored: stored(r) }));
}

export async function updateParameter(q: Queryable, id: string, p: { key: string; sensitive: boolean; stored: StoredValue; updatedAt: string }): Promise<void> {
  await q
    .updateTable('policy_set_parameters')
    .set({ key: p.key, sensitive: p.sensitive, value: p.stored.value, encrypted_value: p.stored.encryptedValue, updated_at: p.updatedAt })
    .where('id', '=', id)
    .execute();
}

export async function deleteParameter(q: Queryable, policySetId: string, id: string): Promise<number> {
  const r = await q.deleteFrom('policy_set_parameters').where('id', '=', id).where('policy_set_id', '=', policySetId).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export const { staleCiphertexts, replaceCiphertext } = sealedRows('policy_set_parameters');
