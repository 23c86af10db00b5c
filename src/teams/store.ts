import type { Queryable } from '../db/index.ts';
import { bool, columns, oneOf } from '../db/columns.ts';
import type { RowFilter } from '../db/filter.ts';
import { links } from '../db/links.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import type { TeamsTable } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';
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

const TEAMS = columns<TeamsTable, Team>({
  id: 'id',
  organizationId: 'organization_id',
  name: 'name',
  visibility: oneOf('visibility', ['secret', 'organization'], 'secret'),
  isOwners: bool('is_owners'),
  // A JSON object of flags; only the flags Hangar models are read back.
  organizationAccess: {
    column: 'organization_access',
    read: (text: string) => withAccess(emptyAccess(), JSON.parse(text) as Record<string, unknown>),
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

export async function listTeams(q: Queryable, f: TeamFilter, page: Window) {
  let base = q.selectFrom('teams').where('organization_id', '=', f.organizationId);
  if (f.names && f.names.length) {
    const lowered = f.names.map((n) => n.toLowerCase());
    base = base.where((eb) => eb(eb.fn('lower', ['name']), 'in', lowered));
  } else if (f.search) {
    base = base.where(containsInsensitive('name', f.search));
  }
  if (f.visible) base = base.where(f.visible);
  return listWithTotal(base, base.selectAll().orderBy('seq'), page, TEAMS.read);
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
