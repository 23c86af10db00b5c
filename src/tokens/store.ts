import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { columns } from '../db/columns.ts';
import { countedPages } from '../db/counted-page.ts';
import type { RowFilter } from '../db/filter.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { AuthTokensTable, TokenKind } from '../db/schema.ts';
import { commaJoined, containsInsensitive } from '../db/sql.ts';

export interface Token {
  id: string;
  kind: TokenKind;
  description: string | null;
  userId: string | null;
  organizationId: string | null;
  /** Agent tokens only: the pool the token belongs to. */
  agentPoolId: string | null;
  /** Team tokens only: the team the token acts as. */
  teamId: string | null;
  createdByUserId: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiredAt: string | null;
}

/** Every column but `digest`, which is written once and only ever searched, never read back. */
const TOKENS = columns<AuthTokensTable, Token>({
  id: 'id',
  kind: 'kind',
  description: 'description',
  userId: 'user_id',
  organizationId: 'organization_id',
  agentPoolId: 'agent_pool_id',
  teamId: 'team_id',
  createdByUserId: 'created_by_user_id',
  createdAt: 'created_at',
  lastUsedAt: 'last_used_at',
  expiredAt: 'expired_at',
});

export async function insertToken(q: Queryable, t: Token, digest: string): Promise<void> {
  await q
    .insertInto('auth_tokens')
    .values({ ...TOKENS.write(t), digest })
    .execute();
}

/**
 * The authentication lookup, on every request: one probe of the unique digest index, joined
 * with what a principal needs. It reads the users and organizations tables directly, the one
 * place a store crosses domains, so that authenticating stays a single query.
 */
/** A token and what authentication needs of it, by its digest (or, for a later check of the same token, its id). */
export async function findForAuthentication(q: Queryable, digest: string, by: 'digest' | 'id' = 'digest') {
  return q
    .selectFrom('auth_tokens as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('organizations as o', 'o.id', 't.organization_id')
    .leftJoin('teams as team', 'team.id', 't.team_id')
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
      't.team_id',
      'team.is_owners as team_is_owners',
      'team.organization_access as team_organization_access',
      // The organizations a user token's user is on a team of: with them known from the start,
      // telling another organization's existing object from a missing one costs no query more.
      (eb) =>
        eb
          .selectFrom('team_memberships as m')
          .innerJoin('teams as tm', 'tm.id', 'm.team_id')
          .select(commaJoined(q, 'tm.organization_id').as('ids'))
          .whereRef('m.user_id', '=', 't.user_id')
          .as('member_of'),
    ])
    .where(by === 'digest' ? 't.digest' : 't.id', '=', digest)
    .executeTakeFirst();
}

export async function touchLastUsed(q: Queryable, id: string, at: string): Promise<void> {
  await q.updateTable('auth_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function findTokenById(q: Queryable, id: string): Promise<Token | undefined> {
  const r = await q.selectFrom('auth_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return r && TOKENS.read(r);
}

/** The organization's token of `kind` (`organization` or `audit-trail`): at most one of each. */
export async function findOrganizationToken(q: Queryable, organizationId: string, kind: TokenKind): Promise<Token | undefined> {
  const r = await q.selectFrom('auth_tokens').selectAll().where('organization_id', '=', organizationId).where('kind', '=', kind).executeTakeFirst();
  return r && TOKENS.read(r);
}

/** A user's tokens, oldest first; `page` null = all of them (the list is unpaginated by default). */
export async function listUserTokens(q: Queryable, userId: string, page: Window | null) {
  const base = q.selectFrom('auth_tokens').where('user_id', '=', userId).where('kind', '=', 'user');
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, TOKENS.read);
}

/** Every column a token is read from: never `digest`. */
const TOKEN_COLUMNS = [
  'id',
  'kind',
  'description',
  'user_id',
  'organization_id',
  'agent_pool_id',
  'team_id',
  'created_by_user_id',
  'created_at',
  'last_used_at',
  'expired_at',
] as const;

const agentTokenPages = countedPages<Pick<Selectable<AuthTokensTable>, (typeof TOKEN_COLUMNS)[number]>>();

/**
 * One page of a pool's tokens by creation time, and the pool's token count beside each row: one
 * statement (a page past the end: one more for the count), compiled once per pool, order and window.
 */
export async function listAgentTokens(q: Queryable, agentPoolId: string, order: { descending: boolean }, page: Window) {
  const direction = order.descending ? 'desc' : 'asc';
  const base = () => q.selectFrom('auth_tokens').where('agent_pool_id', '=', agentPoolId).where('kind', '=', 'agent');
  const total = () => base().select((eb) => eb.fn.countAll<number>().as('n'));
  const { rows, total: count } = await agentTokenPages(q, JSON.stringify([agentPoolId, direction, page.size, page.offset]), {
    page: () =>
      base()
        .select([...TOKEN_COLUMNS, total().as('total_count')])
        .orderBy('seq', direction)
        .limit(page.size)
        .offset(page.offset),
    total: () => q.selectNoFrom(total().as('total_count')),
  });
  // The reader reads the columns it maps, which the page selects: `digest` and `seq` are not among them.
  return { items: rows.map((r) => TOKENS.read(r as unknown as Selectable<AuthTokensTable>)), total: count };
}

export async function deleteToken(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('auth_tokens').where('id', '=', id).execute();
}

/** A team's legacy token: the one without a description (at most one, migration 0015). */
export async function findTeamToken(q: Queryable, teamId: string): Promise<Token | undefined> {
  const r = await q
    .selectFrom('auth_tokens')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('kind', '=', 'team')
    .where('description', 'is', null)
    .executeTakeFirst();
  return r && TOKENS.read(r);
}

/** Deletes a team's legacy token; its tokens with a description stay. */
/** How many tokens a team holds (legacy and described). */
export async function countTeamTokens(q: Queryable, teamId: string): Promise<number> {
  const r = await q
    .selectFrom('auth_tokens')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('team_id', '=', teamId)
    .where('kind', '=', 'team')
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export async function deleteTeamToken(q: Queryable, teamId: string): Promise<number> {
  const r = await q.deleteFrom('auth_tokens').where('team_id', '=', teamId).where('kind', '=', 'team').where('description', 'is', null).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export type TeamTokenSortField = 'team-name' | 'created-by' | 'expired-at' | 'last-used-at';

export interface TeamTokenFilter {
  organizationId: string;
  /** Case-insensitive substring of the team's name (TFE's `q`). */
  search?: string;
  /** The teams whose tokens the caller may see. */
  visible: RowFilter<'teams'>;
}

/**
 * An organization's team tokens, legacy and described, through their teams (the `auth_tokens_org`
 * index, then each team by its key). A token that never expires sorts as the latest expiry, one
 * never used as the earliest use, one made by no user (a team token made it) after every username.
 * The sorts are sorts of those rows, with no index of their own: two of the keys live in other
 * tables (the team's name, the creator's username) and the other two order their nulls apart,
 * and the rows are one organization's team tokens, a few per team.
 */
export async function listTeamTokens(q: Queryable, f: TeamTokenFilter, sort: { field: TeamTokenSortField; descending: boolean }, page: Window) {
  let base = q
    .selectFrom('auth_tokens')
    .innerJoin('teams', 'teams.id', 'auth_tokens.team_id')
    .where('auth_tokens.organization_id', '=', f.organizationId)
    .where('auth_tokens.kind', '=', 'team');
  if (f.search) base = base.where(containsInsensitive('teams.name', f.search));
  if (f.visible) base = base.where(f.visible);
  const direction = sort.descending ? 'desc' : 'asc';
  const rows = base.selectAll('auth_tokens');
  // Only the sort by creator needs the users table.
  const ordered =
    sort.field === 'team-name'
      ? rows.orderBy(sql`lower(teams.name)`, direction)
      : sort.field === 'created-by'
        ? base
            .leftJoin('users as creator', 'creator.id', 'auth_tokens.created_by_user_id')
            .selectAll('auth_tokens')
            .orderBy(sql`creator.username is null`, direction)
            .orderBy(sql.ref('creator.username'), direction)
        : sort.field === 'expired-at'
          ? rows.orderBy(sql`auth_tokens.expired_at is null`, direction).orderBy('auth_tokens.expired_at', direction)
          : rows.orderBy(sql`auth_tokens.last_used_at is not null`, direction).orderBy('auth_tokens.last_used_at', direction);
  return listWithTotal(base, ordered.orderBy('auth_tokens.seq', direction), page, TOKENS.read);
}

export async function deleteOrganizationToken(q: Queryable, organizationId: string, kind: TokenKind): Promise<number> {
  const r = await q.deleteFrom('auth_tokens').where('organization_id', '=', organizationId).where('kind', '=', kind).executeTakeFirst();
  return Number(r.numDeletedRows);
}
