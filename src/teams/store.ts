import type { Queryable } from '../db/index.ts';
import type { Selectable } from 'kysely';
import type { TeamsTable } from '../db/schema.ts';
import { containsInsensitive, supportsRowLocks } from '../db/sql.ts';
import { emptyAccess, withAccess, type OrganizationAccess } from '../auth/permissions.ts';

export interface Team {
  id: string;
  organizationId: string;
  name: string;
  visibility: 'secret' | 'organization';
  isOwners: boolean;
  organizationAccess: OrganizationAccess;
  createdAt: string;
}

function parseAccess(text: string): OrganizationAccess {
  return withAccess(emptyAccess(), JSON.parse(text) as Record<string, unknown>);
}

function toTeam(r: Selectable<TeamsTable>): Team {
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    visibility: r.visibility === 'organization' ? 'organization' : 'secret',
    isOwners: Boolean(r.is_owners),
    organizationAccess: parseAccess(r.organization_access),
    createdAt: r.created_at,
  };
}

export async function insertTeam(q: Queryable, t: Team): Promise<void> {
  await q
    .insertInto('teams')
    .values({
      id: t.id,
      organization_id: t.organizationId,
      name: t.name,
      visibility: t.visibility,
      is_owners: t.isOwners,
      organization_access: JSON.stringify(t.organizationAccess),
      created_at: t.createdAt,
    })
    .execute();
}

export async function updateTeam(
  q: Queryable,
  id: string,
  patch: { name?: string; visibility?: string; organizationAccess?: OrganizationAccess },
): Promise<void> {
  const set: Partial<Record<'name' | 'visibility' | 'organization_access', string>> = {};
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.visibility !== undefined) set.visibility = patch.visibility;
  if (patch.organizationAccess !== undefined) set.organization_access = JSON.stringify(patch.organizationAccess);
  if (Object.keys(set).length === 0) return;
  await q.updateTable('teams').set(set).where('id', '=', id).execute();
}

export async function findTeamById(q: Queryable, id: string): Promise<Team | undefined> {
  const r = await q.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  return r && toTeam(r);
}

export async function findTeamsByIds(q: Queryable, ids: readonly string[]): Promise<Team[]> {
  if (ids.length === 0) return [];
  const rows = await q.selectFrom('teams').selectAll().where('id', 'in', ids).execute();
  return rows.map(toTeam);
}

export interface TeamFilter {
  organizationId: string;
  /** Case-insensitive exact names; wins over `search`. */
  names?: readonly string[];
  /** Case-insensitive substring of the name. */
  search?: string;
  /** null = every team; otherwise only teams visible to the organization or listed here. */
  visibleTeamIds: readonly string[] | null;
}

export async function listTeams(q: Queryable, f: TeamFilter, page: { offset: number; size: number }) {
  let base = q.selectFrom('teams').where('organization_id', '=', f.organizationId);
  if (f.names && f.names.length) {
    base = base.where((eb) => eb(eb.fn('lower', ['name']), 'in', f.names!.map((n) => n.toLowerCase())));
  } else if (f.search) {
    base = base.where(containsInsensitive('name', f.search));
  }
  if (f.visibleTeamIds !== null) {
    const ids = f.visibleTeamIds;
    base = base.where((eb) => eb.or([eb('visibility', '=', 'organization'), ...(ids.length ? [eb('id', 'in', ids)] : [])]));
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at').orderBy('id').limit(page.size).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(toTeam), total: Number(count.n) };
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
  return rows.map(toTeam);
}

export async function organizationIdsOfUser(q: Queryable, userId: string): Promise<string[]> {
  const rows = await q
    .selectFrom('team_memberships as m')
    .innerJoin('teams as t', 't.id', 'm.team_id')
    .select('t.organization_id')
    .distinct()
    .where('m.user_id', '=', userId)
    .execute();
  return rows.map((r) => r.organization_id);
}

/** team id → member user ids, for a page of teams (one query). */
export async function membersOfTeams(q: Queryable, teamIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return result;
  const rows = await q
    .selectFrom('team_memberships')
    .select(['team_id', 'user_id'])
    .where('team_id', 'in', teamIds)
    .orderBy('created_at')
    .execute();
  for (const r of rows) result.get(r.team_id)?.push(r.user_id);
  return result;
}

export async function addMembers(q: Queryable, teamId: string, userIds: readonly string[], createdAt: string): Promise<void> {
  if (userIds.length === 0) return;
  await q
    .insertInto('team_memberships')
    .values(userIds.map((user_id) => ({ team_id: teamId, user_id, created_at: createdAt })))
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .execute();
}

export async function removeMembers(q: Queryable, teamId: string, userIds: readonly string[]): Promise<void> {
  if (userIds.length === 0) return;
  await q.deleteFrom('team_memberships').where('team_id', '=', teamId).where('user_id', 'in', userIds).execute();
}

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
