import { sql, type Selectable } from 'kysely';
import type { Queryable } from '../db/index.ts';
import { bool, columns, oneOf } from '../db/columns.ts';
import { countedPages } from '../db/counted-page.ts';
import { filterKey, type RowFilter } from '../db/filter.ts';
import { links } from '../db/links.ts';
import type { Window } from '../db/list.ts';
import type { TeamsTable } from '../db/schema.ts';
import { containsInsensitive, isPostgres, supportsRowLocks } from '../db/sql.ts';
import { emptyAccess, withAccess, type OrganizationAccess } from '../grants.ts';

export interface Team {
  id: string;
  organizationId: string;
  name: string;
  visibility: 'secret' | 'organization';
  isOwners: boolean;
  organizationAccess: OrganizationAccess;
  /** The identity provider's id for the team, stored and shown as sent. */
  ssoTeamId: string | null;
  /** Stored and shown; Hangar has no team tokens for it to govern. */
  allowMemberTokenManagement: boolean;
  createdAt: string;
}

/**
 * The flags a stored text reads as. Teams share a few texts (the owners', the defaults), so each
 * is parsed once and the object shared, frozen: a change makes a new object (`withAccess`).
 */
const accessByText = new Map<string, OrganizationAccess>();
function accessOf(text: string): OrganizationAccess {
  let access = accessByText.get(text);
  if (!access) {
    if (accessByText.size >= 1_000) accessByText.delete(accessByText.keys().next().value!);
    access = Object.freeze(withAccess(emptyAccess(), JSON.parse(text) as Record<string, unknown>));
    accessByText.set(text, access);
  }
  return access;
}

const TEAMS = columns<TeamsTable, Team>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  visibility: oneOf('visibility', ['secret', 'organization'], 'secret'),
  isOwners: bool('is_owners'),
  // A JSON object of flags; only the flags Hangar models are read back.
  organizationAccess: {
    column: 'organization_access',
    read: accessOf,
    write: (access) => JSON.stringify(access),
  },
  ssoTeamId: 'sso_team_id',
  allowMemberTokenManagement: bool('allow_member_token_management'),
  createdAt: 'created_at',
});
const CHANGEABLE = ['name', 'visibility', 'organizationAccess', 'ssoTeamId', 'allowMemberTokenManagement'] as const;
export type TeamPatch = Partial<Pick<Team, (typeof CHANGEABLE)[number]>>;
const changes = TEAMS.patch(...CHANGEABLE);

export async function insertTeam(q: Queryable, t: Team): Promise<void> {
  await q.insertInto('teams').values(TEAMS.write(t)).execute();
}

export async function updateTeam(q: Queryable, id: string, patch: TeamPatch): Promise<void> {
  const set = changes(patch);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('teams').set(set).where('id', '=', id).execute();
}

export async function findTeamById(q: Queryable, id: string): Promise<Team | undefined> {
  const r = await q.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  return r && TEAMS.read(r);
}

export interface TeamFilter {
  organizationId: string;
  /** Case-insensitive exact names; wins over `search`. */
  names?: readonly string[];
  /** Case-insensitive substring of the name. */
  search?: string;
  /** The teams the caller may see. */
  visible: RowFilter<'teams'>;
}

/** A team of a list page and who is on it, oldest membership first (as `members.of` orders them). */
export interface ListedTeam {
  team: Team;
  memberIds: string[];
}

/**
 * The team's members as one comma-joined text, a subquery beside its columns, ordered as
 * `members.of` orders them: by when they joined, members who joined together in the database's order.
 */
const memberIdsOf = (q: Queryable) =>
  isPostgres(q)
    ? sql<string | null>`(select string_agg(m.user_id, ',' order by m.created_at) from team_memberships as m where m.team_id = teams.id)`
    : sql<string | null>`(select group_concat(m.user_id, ',' order by m.created_at) from team_memberships as m where m.team_id = teams.id)`;

type PageRow = Selectable<TeamsTable> & { member_ids: string | null };
const teamPages = countedPages<PageRow>();

/**
 * One page of the organization's teams, each with its members, and the list's count beside each
 * row: one statement (a page past the end: one more for the count), compiled once per
 * organization, caller's filter, names or search and window (a filter without a key: built each time).
 */
export async function listTeams(q: Queryable, f: TeamFilter, page: Window): Promise<{ items: ListedTeam[]; total: number }> {
  const names = f.names?.length ? f.names.map((n) => n.toLowerCase()) : null;
  const base = () => {
    let query = q.selectFrom('teams').where('organization_id', '=', f.organizationId);
    if (names) query = query.where((eb) => eb(eb.fn('lower', ['name']), 'in', names));
    else if (f.search) query = query.where(containsInsensitive('name', f.search));
    if (f.visible) query = query.where(f.visible);
    return query;
  };
  const total = () => base().select((eb) => eb.fn.countAll<number>().as('n'));
  const visible = filterKey(f.visible);
  // JSON: names and search text may hold any character, and no two pages may share a key.
  const key = visible === null ? null : JSON.stringify([f.organizationId, visible, names, names ? null : (f.search ?? null), page.size, page.offset]);
  const { rows, total: count } = await teamPages(q, key, {
    page: () =>
      base()
        .selectAll()
        .select([total().as('total_count'), memberIdsOf(q).as('member_ids')])
        .orderBy('seq')
        .limit(page.size)
        .offset(page.offset),
    total: () => q.selectNoFrom(total().as('total_count')),
  });
  return { items: rows.map((r) => ({ team: TEAMS.read(r), memberIds: r.member_ids ? r.member_ids.split(',') : [] })), total: count };
}

export async function deleteTeam(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('teams').where('id', '=', id).execute();
}

/** The teams a user is on in the given organizations: the data behind a caller's standing. */
export async function teamsOfUser(q: Queryable, userId: string, organizationIds: readonly string[]): Promise<Team[]> {
  if (organizationIds.length === 0) return [];
  const rows = await q
    .selectFrom('team_memberships as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .selectAll('t')
    .where('m.user_id', '=', userId)
    .where('t.organization_id', 'in', organizationIds)
    .execute();
  return rows.map(TEAMS.read);
}

/** Who is on each team. Members added together keep the order the database returns them in. */
export const members = links('team_memberships', { from: 'team_id', to: 'user_id' }, { tieBreak: false });

export async function countMembers(q: Queryable, teamId: string): Promise<number> {
  const r = await q
    .selectFrom('team_memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Serialises membership changes of one team (PostgreSQL; SQLite transactions are already serial). */
export async function lockTeam(q: Queryable, id: string): Promise<void> {
  if (!supportsRowLocks(q)) return;
  await q.selectFrom('teams').select('id').where('id', '=', id).forUpdate().execute();
}

/** Who is on which team of one organization, for these users. */
export async function teamsOfUsers(q: Queryable, organizationId: string, userIds: readonly string[]): Promise<Array<{ userId: string; teamId: string }>> {
  if (userIds.length === 0) return [];
  return q
    .selectFrom('team_memberships as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['m.user_id as userId', 'm.team_id as teamId'])
    .where('t.organization_id', '=', organizationId)
    .where('m.user_id', 'in', [...new Set(userIds)])
    .orderBy('m.created_at')
    .orderBy('m.team_id')
    .execute();
}

/** The members of these organizations' owners teams, oldest first: TFE's admin view names them `owners`. */
export async function ownersOf(q: Queryable, organizationIds: readonly string[]): Promise<Array<{ organizationId: string; userId: string }>> {
  if (organizationIds.length === 0) return [];
  return q
    .selectFrom('team_memberships as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select(['t.organization_id as organizationId', 'm.user_id as userId'])
    .where('t.is_owners', '=', true)
    .where('t.organization_id', 'in', [...new Set(organizationIds)])
    .orderBy('m.created_at')
    .orderBy('m.user_id')
    .execute();
}

export async function findTeamsByIds(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Team[]> {
  if (ids.length === 0) return [];
  const rows = await q
    .selectFrom('teams')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return rows.map(TEAMS.read);
}
