// Set-up helpers for the projects, workspaces and team access suites. Everything goes through
// HTTP except `seedWorkspaces`, which inserts rows directly for the thousand-workspace tests.
import type { TestContext } from './harness.ts';
import { unique } from './harness.ts';
import { newId } from '../../src/ids.ts';
import { now } from '../../src/time.ts';
import { DEFAULT_SETTINGS, insertWorkspace } from '../../src/workspaces/store.ts';

export interface Org {
  name: string;
  owner: { id: string; username: string; token: string };
  defaultProjectId: string;
}

/** A project name that is valid (3–40 characters) and unused. */
export function projectName(prefix = 'prj'): string {
  return unique(prefix).slice(0, 40);
}

export function projectBody(attributes: Record<string, unknown>) {
  return { data: { type: 'projects', attributes } };
}

async function expectStatus(res: { status: number; raw: string }, status: number, what: string) {
  if (res.status !== status) throw new Error(`${what} failed: ${res.status} ${res.raw}`);
}

export async function createProject(ctx: TestContext, org: Org, attributes: Record<string, unknown> = {}, token = org.owner.token) {
  const res = await ctx.post(`/api/v2/organizations/${org.name}/projects`, token, projectBody({ name: projectName(), ...attributes }));
  await expectStatus(res, 201, 'project create');
  return res.body.data as { id: string; attributes: Record<string, any> };
}

export function workspaceBody(attributes: Record<string, unknown>, projectId?: string) {
  return {
    data: {
      type: 'workspaces',
      attributes,
      ...(projectId ? { relationships: { project: { data: { type: 'projects', id: projectId } } } } : {}),
    },
  };
}

export async function createWorkspace(ctx: TestContext, org: Org, projectId?: string, attributes: Record<string, unknown> = {}, token = org.owner.token) {
  const res = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, token, workspaceBody({ name: unique('ws'), ...attributes }, projectId));
  await expectStatus(res, 201, 'workspace create');
  return res.body.data as { id: string; attributes: Record<string, any>; relationships: Record<string, any> };
}

export function teamProjectBody(teamId: string, projectId: string, access: string, attributes: Record<string, unknown> = {}) {
  return {
    data: {
      type: 'team-projects',
      attributes: { access, ...attributes },
      relationships: { project: { data: { type: 'projects', id: projectId } }, team: { data: { type: 'teams', id: teamId } } },
    },
  };
}

/** Gives `teamId` access to `projectId` (as the owner); returns the team-projects resource. */
export async function grant(ctx: TestContext, org: Org, teamId: string, projectId: string, access: string, attributes: Record<string, unknown> = {}) {
  const res = await ctx.post('/api/v2/team-projects', org.owner.token, teamProjectBody(teamId, projectId, access, attributes));
  await expectStatus(res, 201, 'team-project create');
  return res.body.data as { id: string; attributes: Record<string, any> };
}

/** A member on a team with no organization access, holding `access` on each listed project. */
export async function memberWithAccess(
  ctx: TestContext,
  org: Org,
  grants: Array<[projectId: string, access: string]>,
  orgAccess: Record<string, boolean> = {},
) {
  const member = await ctx.member(org, orgAccess);
  for (const [projectId, access] of grants) await grant(ctx, org, member.teamId, projectId, access);
  return member;
}

/** Inserts `count` workspaces straight into the database (fast set-up for bulk tests). */
export async function seedWorkspaces(ctx: TestContext, org: Org, projectId: string, count: number): Promise<string[]> {
  const organization = await ctx.database.db.selectFrom('organizations').select('id').where('name', '=', org.name).executeTakeFirstOrThrow();
  const ids: string[] = [];
  const at = now();
  for (let i = 0; i < count; i++) {
    const id = newId('ws');
    ids.push(id);
    await insertWorkspace(ctx.database.db, {
      id,
      organizationId: organization.id,
      projectId,
      name: `bulk-${id.slice(3)}`,
      description: null,
      autoDestroyActivityDuration: null,
      inheritsProjectAutoDestroy: true,
      sshKeyId: null,
      createdAt: at,
      updatedAt: at,
      ...DEFAULT_SETTINGS,
      executionMode: null,
      agentPoolId: null,
    });
  }
  return ids;
}

/** project id of every listed workspace, read straight from the database. */
export async function projectsOf(ctx: TestContext, workspaceIds: readonly string[]): Promise<Map<string, string>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await ctx.database.db
    .selectFrom('workspaces')
    .select(['id', 'project_id'])
    .where('id', 'in', [...workspaceIds])
    .execute();
  return new Map(rows.map((r) => [r.id, r.project_id]));
}
