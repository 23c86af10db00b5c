import { bool, columns, type Converted } from '../db/columns.ts';
import type { Queryable } from '../db/index.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { NotificationConfigurationsTable, NotificationDeliveriesTable, NotificationDeliveryResponsesTable } from '../db/schema.ts';
import { supportsRowLocks } from '../db/sql.ts';

export const DESTINATION_TYPES = ['generic', 'email', 'slack', 'microsoft-teams'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

export interface NotificationConfiguration {
  id: string;
  /** The subscribable: a workspace (team configurations are not served yet). */
  workspaceId: string | null;
  teamId: string | null;
  name: string;
  destinationType: DestinationType;
  enabled: boolean;
  url: string | null;
  /** Sealed with the keyring, the configuration id as associated data; null: no token. */
  encryptedToken: string | null;
  triggers: string[];
  emailAddresses: string[];
  createdAt: string;
  updatedAt: string;
}

/** One outcome of a delivery, as TFE's `delivery-responses` show it. */
export interface DeliveryResponse {
  id: string;
  configurationId: string;
  url: string;
  body: string;
  code: string;
  headers: Record<string, string[]>;
  successful: boolean;
  createdAt: string;
}

/** A row of the outbox: a notification still to send. */
export interface Delivery {
  id: string;
  configurationId: string;
  trigger: string;
  /** What the payload says about the run (JSON-serializable; see service.ts `Subject`). */
  subject: unknown;
  attempts: number;
  nextAttemptAt: string;
  createdAt: string;
}

const json = <C extends string, V>(column: C): Converted<C, V> => ({ column, read: (s: string) => JSON.parse(s) as V, write: (v: V) => JSON.stringify(v) });

const CONFIGURATIONS = columns<NotificationConfigurationsTable, NotificationConfiguration>({
  id: 'id',
  workspaceId: 'workspace_id',
  teamId: 'team_id',
  name: 'name',
  destinationType: { column: 'destination_type', read: (s: string) => s as DestinationType },
  enabled: bool('enabled'),
  url: 'url',
  encryptedToken: 'encrypted_token',
  triggers: json('triggers'),
  emailAddresses: json('email_addresses'),
  createdAt: 'created_at',
  updatedAt: 'updated_at',
});

const RESPONSES = columns<NotificationDeliveryResponsesTable, DeliveryResponse>({
  id: 'id',
  configurationId: 'configuration_id',
  url: 'url',
  body: 'body',
  code: 'code',
  headers: json('headers'),
  successful: bool('successful'),
  createdAt: 'created_at',
});

const DELIVERIES = columns<NotificationDeliveriesTable, Delivery>({
  id: 'id',
  configurationId: 'configuration_id',
  trigger: 'trigger',
  subject: json('subject'),
  attempts: 'attempts',
  nextAttemptAt: 'next_attempt_at',
  createdAt: 'created_at',
});

export const patchConfiguration = CONFIGURATIONS.patch('name', 'enabled', 'url', 'encryptedToken', 'triggers', 'emailAddresses', 'updatedAt');

export async function insertConfiguration(q: Queryable, c: NotificationConfiguration): Promise<void> {
  await q.insertInto('notification_configurations').values(CONFIGURATIONS.write(c)).execute();
}

export async function findConfiguration(q: Queryable, id: string): Promise<NotificationConfiguration | undefined> {
  const r = await q.selectFrom('notification_configurations').selectAll().where('id', '=', id).executeTakeFirst();
  return r && CONFIGURATIONS.read(r);
}

export async function updateConfiguration(q: Queryable, id: string, changes: ReturnType<typeof patchConfiguration>): Promise<void> {
  await q.updateTable('notification_configurations').set(changes).where('id', '=', id).execute();
}

export async function deleteConfiguration(q: Queryable, id: string): Promise<number> {
  const r = await q.deleteFrom('notification_configurations').where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** What configurations belong to: a workspace or a team. */
export interface Owner {
  kind: 'workspace' | 'team';
  id: string;
}

const ownerColumn = (o: Owner) => (o.kind === 'workspace' ? 'workspace_id' : 'team_id');

/** A page of the owner's configurations in creation order (all of them when `page` is null), and how many there are. */
export async function listConfigurations(q: Queryable, owner: Owner, page: Window | null) {
  const base = q.selectFrom('notification_configurations').where(ownerColumn(owner), '=', owner.id);
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, CONFIGURATIONS.read);
}

/** The enabled configurations of the workspace: those a run's status change may notify. */
export async function enabledOfWorkspace(q: Queryable, workspaceId: string): Promise<NotificationConfiguration[]> {
  const rows = await q.selectFrom('notification_configurations').selectAll().where('workspace_id', '=', workspaceId).where('enabled', '=', true).execute();
  return rows.map(CONFIGURATIONS.read);
}

/** The users each configuration notifies by email, for many configurations in one query. */
export async function usersOf(q: Queryable, ids: readonly string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return found;
  const rows = await q
    .selectFrom('notification_configuration_users')
    .select(['configuration_id', 'user_id'])
    .where('configuration_id', 'in', [...ids])
    .orderBy('user_id')
    .execute();
  for (const r of rows) found.get(r.configuration_id)?.push(r.user_id);
  return found;
}

export async function replaceUsers(q: Queryable, id: string, userIds: readonly string[]): Promise<void> {
  await q.deleteFrom('notification_configuration_users').where('configuration_id', '=', id).execute();
  if (userIds.length === 0) return;
  await q
    .insertInto('notification_configuration_users')
    .values([...new Set(userIds)].map((user_id) => ({ configuration_id: id, user_id })))
    .execute();
}

/** The newest responses of each configuration (newest first), for many configurations in one query. */
export async function responsesOf(q: Queryable, ids: readonly string[], keep: number): Promise<Map<string, DeliveryResponse[]>> {
  const found = new Map<string, DeliveryResponse[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return found;
  const rows = await q
    .selectFrom('notification_delivery_responses')
    .selectAll()
    .where('configuration_id', 'in', [...ids])
    .orderBy('seq', 'desc')
    .execute();
  for (const r of rows) {
    const list = found.get(r.configuration_id);
    if (list && list.length < keep) list.push(RESPONSES.read(r));
  }
  return found;
}

/** Records a response and forgets all but the newest `keep` of its configuration. */
export async function recordResponse(q: Queryable, r: DeliveryResponse, keep: number): Promise<void> {
  await q.insertInto('notification_delivery_responses').values(RESPONSES.write(r)).execute();
  const newest = await q
    .selectFrom('notification_delivery_responses')
    .select('seq')
    .where('configuration_id', '=', r.configurationId)
    .orderBy('seq', 'desc')
    .offset(keep - 1)
    .limit(1)
    .executeTakeFirst();
  if (newest) {
    await q.deleteFrom('notification_delivery_responses').where('configuration_id', '=', r.configurationId).where('seq', '<', newest.seq).execute();
  }
}

export async function insertDeliveries(q: Queryable, rows: readonly Delivery[]): Promise<void> {
  if (rows.length === 0) return;
  await q.insertInto('notification_deliveries').values(rows.map(DELIVERIES.write)).execute();
}

/**
 * Outbox rows due at `at`, oldest first. On PostgreSQL, inside a transaction, the rows are held
 * with `FOR UPDATE SKIP LOCKED`, so instances looking at once see different rows; the claim that
 * follows is a conditional UPDATE either way, so a row is only ever claimed once.
 */
export async function dueDeliveries(q: Queryable, at: string, limit: number): Promise<Delivery[]> {
  let query = q.selectFrom('notification_deliveries').selectAll().where('next_attempt_at', '<=', at).orderBy('next_attempt_at').orderBy('id').limit(limit);
  if (supportsRowLocks(q)) query = query.forUpdate().skipLocked();
  return (await query.execute()).map(DELIVERIES.read);
}

/** Claims a row seen due: counts the attempt and leases it until `leaseUntil`; false when another deliverer was first. */
export async function claimDelivery(q: Queryable, d: Delivery, leaseUntil: string): Promise<boolean> {
  const r = await q
    .updateTable('notification_deliveries')
    .set({ attempts: d.attempts + 1, next_attempt_at: leaseUntil })
    .where('id', '=', d.id)
    .where('attempts', '=', d.attempts)
    .where('next_attempt_at', '=', d.nextAttemptAt)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function rescheduleDelivery(q: Queryable, id: string, at: string): Promise<void> {
  await q.updateTable('notification_deliveries').set({ next_attempt_at: at }).where('id', '=', id).execute();
}

export async function deleteDelivery(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('notification_deliveries').where('id', '=', id).execute();
}

/** How many notifications wait to be sent (for tests and metrics). */
export async function pendingDeliveries(q: Queryable): Promise<number> {
  const r = await q
    .selectFrom('notification_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** How many configurations the owner has. */
export async function countOf(q: Queryable, owner: Owner): Promise<number> {
  const r = await q
    .selectFrom('notification_configurations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(ownerColumn(owner), '=', owner.id)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** `hangar rotate-key`: the next `limit` tokens after `afterId` sealed with another key than `currentPrefix` names, locked on PostgreSQL. */
export async function staleTokens(q: Queryable, currentPrefix: string, afterId: string, limit: number): Promise<Array<{ id: string; encryptedValue: string }>> {
  let query = q
    .selectFrom('notification_configurations')
    .select(['id', 'encrypted_token'])
    .where('encrypted_token', 'is not', null)
    .where('id', '>', afterId)
    .where((eb) => eb.not(eb('encrypted_token', 'like', `${currentPrefix}%`)))
    .orderBy('id')
    .limit(limit);
  if (supportsRowLocks(q)) query = query.forUpdate();
  return (await query.execute()).map((r) => ({ id: r.id, encryptedValue: r.encrypted_token ?? '' }));
}

export async function replaceToken(q: Queryable, id: string, ciphertext: string): Promise<void> {
  await q.updateTable('notification_configurations').set({ encrypted_token: ciphertext }).where('id', '=', id).execute();
}
