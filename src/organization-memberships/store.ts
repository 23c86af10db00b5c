import type { Queryable } from '../db/index.ts';
import { listWithTotal, type Window } from '../db/list.ts';
import { containsInsensitive } from '../db/sql.ts';

export type MembershipStatus = 'invited' | 'active';

export interface Membership {
  id: string;
  organizationId: string;
  userId: string;
  status: MembershipStatus;
  createdAt: string;
  /** The user's address (the membership's `email`), read with the membership. */
  email: string;
}

const read = (r: { id: string; organization_id: string; user_id: string; status: string; created_at: string; email: string }): Membership => ({
  id: r.id,
  organizationId: r.organization_id,
  userId: r.user_id,
  status: r.status === 'active' ? 'active' : 'invited',
  createdAt: r.created_at,
  email: r.email,
});

const withUser = (q: Queryable) =>
  q
    .selectFrom('organization_memberships as om')
    .innerJoin('users as u', 'u.id', 'om.user_id')
    .select(['om.id', 'om.organization_id', 'om.user_id', 'om.status', 'om.created_at', 'u.email']);

export async function insertMembership(q: Queryable, m: Omit<Membership, 'email'>): Promise<void> {
  await q
    .insertInto('organization_memberships')
    .values({ id: m.id, organization_id: m.organizationId, user_id: m.userId, status: m.status, created_at: m.createdAt })
    .execute();
}

export async function findMembership(q: Queryable, id: string): Promise<Membership | undefined> {
  const r = await withUser(q).where('om.id', '=', id).executeTakeFirst();
  return r && read(r);
}

export async function findMemberships(q: Queryable, ids: readonly string[]): Promise<Membership[]> {
  if (ids.length === 0) return [];
  return (
    await withUser(q)
      .where('om.id', 'in', [...new Set(ids)])
      .execute()
  ).map(read);
}

/** The memberships of these users in one organization. */
export async function membershipsOfUsers(q: Queryable, organizationId: string, userIds: readonly string[]): Promise<Membership[]> {
  if (userIds.length === 0) return [];
  const rows = await withUser(q)
    .where('om.organization_id', '=', organizationId)
    .where('om.user_id', 'in', [...new Set(userIds)])
    .execute();
  return rows.map(read);
}

export interface MembershipFilter {
  organizationId: string;
  /** Case-insensitive exact addresses. */
  emails?: readonly string[];
  status?: MembershipStatus;
  /** Case-insensitive substring of the address or the username. */
  search?: string;
}

export async function listMemberships(q: Queryable, f: MembershipFilter, page: Window) {
  let base = q.selectFrom('organization_memberships as om').innerJoin('users as u', 'u.id', 'om.user_id').where('om.organization_id', '=', f.organizationId);
  if (f.emails?.length) {
    const lowered = f.emails.map((e) => e.toLowerCase());
    base = base.where((eb) => eb(eb.fn('lower', ['u.email']), 'in', lowered));
  }
  if (f.status) base = base.where('om.status', '=', f.status);
  if (f.search) {
    const search = f.search;
    base = base.where((eb) => eb.or([containsInsensitive('u.email', search), containsInsensitive('u.username', search)]));
  }
  const rows = base.select(['om.id', 'om.organization_id', 'om.user_id', 'om.status', 'om.created_at', 'u.email']).orderBy('om.seq');
  return listWithTotal(base, rows, page, read);
}

/** A user's own memberships, in every organization, oldest first. */
export async function membershipsOfUser(q: Queryable, userId: string): Promise<Membership[]> {
  return (await withUser(q).where('om.user_id', '=', userId).orderBy('om.seq').execute()).map(read);
}

export async function activate(q: Queryable, id: string): Promise<boolean> {
  const r = await q.updateTable('organization_memberships').set({ status: 'active' }).where('id', '=', id).where('status', '=', 'invited').executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function deleteMembership(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('organization_memberships').where('id', '=', id).execute();
}

/** The teams invitations will put their users on: membership id → team ids, oldest first. */
export async function invitedTeams(q: Queryable, membershipIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(membershipIds.map((id) => [id, []]));
  if (membershipIds.length === 0) return result;
  const rows = await q
    .selectFrom('organization_membership_teams')
    .select(['membership_id', 'team_id'])
    .where('membership_id', 'in', [...new Set(membershipIds)])
    .orderBy('created_at')
    .orderBy('team_id')
    .execute();
  for (const r of rows) result.get(r.membership_id)?.push(r.team_id);
  return result;
}

/** The invitations waiting to put their users on each team: team id → membership ids. */
export async function invitationsToTeams(q: Queryable, teamIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(teamIds.map((id) => [id, []]));
  if (teamIds.length === 0) return result;
  const rows = await q
    .selectFrom('organization_membership_teams')
    .select(['membership_id', 'team_id'])
    .where('team_id', 'in', [...new Set(teamIds)])
    .orderBy('created_at')
    .orderBy('membership_id')
    .execute();
  for (const r of rows) result.get(r.team_id)?.push(r.membership_id);
  return result;
}

export async function inviteToTeams(q: Queryable, membershipIds: readonly string[], teamIds: readonly string[], createdAt: string): Promise<void> {
  const values = membershipIds.flatMap((membership_id) => teamIds.map((team_id) => ({ membership_id, team_id, created_at: createdAt })));
  if (values.length === 0) return;
  await q
    .insertInto('organization_membership_teams')
    .values(values)
    .onConflict((oc) => oc.columns(['membership_id', 'team_id']).doNothing())
    .execute();
}

export async function uninviteFromTeam(q: Queryable, membershipIds: readonly string[], teamId: string): Promise<void> {
  if (membershipIds.length === 0) return;
  await q
    .deleteFrom('organization_membership_teams')
    .where('team_id', '=', teamId)
    .where('membership_id', 'in', [...membershipIds])
    .execute();
}

export async function clearInvitedTeams(q: Queryable, membershipId: string): Promise<void> {
  await q.deleteFrom('organization_membership_teams').where('membership_id', '=', membershipId).execute();
}
