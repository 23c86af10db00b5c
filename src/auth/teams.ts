// Who sees which teams, and which of a project's team grants: each rule in JavaScript (for one
// team or grant) and in SQL (for lists), side by side.
import type { ExpressionBuilder } from 'kysely';
import type { RowFilter } from '../db/filter.ts';
import type { Schema } from '../db/schema.ts';
import { holds, type Standing } from './organization.ts';
import type { ProjectAuthority } from './project-scope.ts';

/** Secret teams are visible to their members, owners and `access-secret-teams` only (as in TFE). */
export function seesTeam(s: Standing, team: { id: string; visibility: string }): boolean {
  return s.member && (team.visibility === 'organization' || holds(s, 'see-secret-teams') || s.teamIds.includes(team.id));
}

/** A membership's teams: all of them to its own user (who is, or is invited to be, on each), visible ones to others. */
export function seesMembershipTeam(s: Standing, own: boolean, team: { id: string; visibility: string }): boolean {
  return own || seesTeam(s, team);
}

/** SQL half of seesTeam, for the organization's team list (null: every team). */
export function teamFilter(s: Standing): RowFilter<'teams'> {
  if (holds(s, 'see-secret-teams')) return null;
  const ids = s.teamIds;
  // What the SQL depends on, all of it (db/filter.ts).
  const key = `teams ${ids.join(',')}`;
  return Object.assign(
    (eb: ExpressionBuilder<Schema, 'teams'>) => eb.or([eb('teams.visibility', '=', 'organization'), ...(ids.length ? [eb('teams.id', 'in', [...ids])] : [])]),
    { key },
  );
}

/**
 * Anyone who may read a project sees its grants to their own teams; those who may read the
 * project's teams (admins, `manage-projects`, `manage-teams`) see all of them.
 */
export function seesTeamGrant(s: Standing, authority: ProjectAuthority, grant: { teamId: string }): boolean {
  return authority.read && (authority.readTeams || s.teamIds.includes(grant.teamId));
}

/** SQL half of seesTeamGrant, for a project's grant list (the project is readable; null: every grant). */
export function teamGrantFilter(s: Standing, authority: ProjectAuthority): RowFilter<'team_projects'> {
  if (authority.readTeams) return null;
  const ids = s.teamIds;
  // An empty list is `1 = 0` (Kysely), never the invalid `in ()`.
  return (eb) => (ids.length ? eb('team_projects.team_id', 'in', [...ids]) : eb.or([]));
}

/**
 * Anyone who may read a workspace sees its grants to their own teams; its admins and those who
 * manage teams see all of them.
 */
export function seesWorkspaceTeamGrant(s: Standing, authority: ProjectAuthority, grant: { teamId: string }): boolean {
  return authority.readWorkspaces && (authority.manageWorkspaces || holds(s, 'manage-teams') || s.teamIds.includes(grant.teamId));
}

/** SQL half of seesWorkspaceTeamGrant, for a workspace's grant list (the workspace is readable; null: every grant). */
export function workspaceTeamGrantFilter(s: Standing, authority: ProjectAuthority): RowFilter<'team_workspaces'> {
  if (authority.manageWorkspaces || holds(s, 'manage-teams')) return null;
  const ids = s.teamIds;
  return (eb) => (ids.length ? eb('team_workspaces.team_id', 'in', [...ids]) : eb.or([]));
}
