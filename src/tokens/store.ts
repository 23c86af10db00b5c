import type { Queryable } from '../db/index.ts';
import type { Selectable } from 'kysely';
import type { AuthTokensTable, TokenKind } from '../db/schema.ts';

export interface Token {
  id: string;
  kind: TokenKind;
  description: string | null;
  userId: string | null;
  organizationId: string | null;
  /** Agent tokens only: the pool the token belongs to. */
  agentPoolId: string | null;
  createdByUserId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiredAt: string | null;
}

function toToken(r: Selectable<AuthTokensTable>): Token {
  return {
    id: r.id,
    kind: r.kind,
    description: r.description,
    userId: r.user_id,
    organizationId: r.organization_id,
    agentPoolId: r.agent_pool_id,
    createdByUserId: r.created_by_user_id,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiredAt: r.expired_at,
  };
}

export async function insertToken(q: Queryable, t: Token, digest: string): Promise<void> {
  await q
    .insertInto('auth_tokens')
    .values({
      id: t.id,
      kind: t.kind,
      digest,
      description: t.description,
      user_id: t.userId,
      organization_id: t.organizationId,
      agent_pool_id: t.agentPoolId,
      created_by_user_id: t.createdByUserId,
      created_at: t.createdAt,
      last_used_at: t.lastUsedAt,
      expired_at: t.expiredAt,
    })
    .execute();
}

/**
 * The authentication lookup, on every request: one probe of the unique digest index, joined
 * with what a principal needs. It reads the users and organizations tables directly, the one
 * place a store crosses domains, so that authenticating stays a single query.
 */
export async function findForAuthentication(q: Queryable, digest: string) {
  return q
    .selectFrom('auth_tokens as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('organizations as o', 'o.id', 't.organization_id')
    .select([
      't.id',
      't.kind',
      't.user_id',
      't.organization_id',
      't.agent_pool_id',
      't.last_used_at',
      't.expired_at',
      'u.username',
      'u.is_site_admin',
      'u.is_service_account',
      'o.name as organization_name',
      'o.service_user_id',
    ])
    .where('t.digest', '=', digest)
    .executeTakeFirst();
}

export async function touchLastUsed(q: Queryable, id: string, at: string): Promise<void> {
  await q.updateTable('auth_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function findTokenById(q: Queryable, id: string): Promise<Token | undefined> {
  const r = await q.selectFrom('auth_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toToken(r);
}

export async function findOrganizationToken(q: Queryable, organizationId: string): Promise<Token | undefined> {
  const r = await q
    .selectFrom('auth_tokens')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('kind', '=', 'organization')
    .executeTakeFirst();
  return r && toToken(r);
}

/** A user's tokens, oldest first; `page` null = all of them (the list is unpaginated by default). */
export async function listUserTokens(q: Queryable, userId: string, page: { offset: number; size: number } | null) {
  const base = q.selectFrom('auth_tokens').where('user_id', '=', userId).where('kind', '=', 'user');
  let rows = base.selectAll().orderBy('created_at').orderBy('id');
  if (page) rows = rows.limit(page.size).offset(page.offset);
  const [items, count] = await Promise.all([
    rows.execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: items.map(toToken), total: Number(count.n) };
}

/** One page of a pool's tokens by creation time, ties broken by id in the same direction. */
export async function listAgentTokens(
  q: Queryable,
  agentPoolId: string,
  order: { descending: boolean },
  page: { offset: number; size: number },
) {
  const base = q.selectFrom('auth_tokens').where('agent_pool_id', '=', agentPoolId).where('kind', '=', 'agent');
  const direction = order.descending ? 'desc' : 'asc';
  const [items, count] = await Promise.all([
    base.selectAll().orderBy('created_at', direction).orderBy('id', direction).limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: items.map(toToken), total: Number(count.n) };
}

export async function deleteToken(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('auth_tokens').where('id', '=', id).execute();
}

export async function deleteOrganizationToken(q: Queryable, organizationId: string): Promise<number> {
  const r = await q
    .deleteFrom('auth_tokens')
    .where('organization_id', '=', organizationId)
    .where('kind', '=', 'organization')
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
