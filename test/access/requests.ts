// What each row of matrix.ts sends: the ids for its path parameters and a valid body, so that
// the status a cell gets is about permission and nothing else. `make` runs once per cell, so a
// row that destroys or changes its target makes a fresh one each time.
import { unique } from '../helpers/harness.ts';
import { projectRefs, workspaceRefs } from '../helpers/policy-sets.ts';
import { poolBody } from '../helpers/agents.ts';
import { agentRun } from '../helpers/agent-jobs.ts';
import { lock, stateFile, unlock, versionBody } from '../helpers/state.ts';
import { invitationBody, membersBody, membershipsBody, tokenBody, type World } from './world.ts';

export interface CellRequest {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  /** The agent endpoints take plain JSON. */
  contentType?: string;
  /** Runs with the cell's own token just before its request (to take a lock as that caller, say). */
  asCaller?: (token: string | null) => Promise<void>;
}

export interface RowRequest {
  /**
   * Every cell runs in a world of its own: for rows that would change the world for every
   * later caller (deleting the organization, replacing its token).
   */
  isolate?: boolean;
  make: (w: World) => Promise<CellRequest>;
}

const AUDIT_TRAILS = 'token=audit-trails';
const JOB_COUNTS = { additions: 0, changes: 0, destructions: 0, imports: 0 };
/** A job protocol call on a held job: its id in the path, its runner in the body. */
const jobRequest = (held: { jobId: string; runner: string }, body: (runner: string) => Record<string, unknown>): CellRequest => ({
  params: { job_id: held.jobId },
  body: body(held.runner),
  contentType: 'application/json',
});
const org = async (w: World) => ({ organization_name: (await w.org()).name });
const owner = async (w: World) => ({ user_id: (await w.org()).owner.id });
const doc = (type: string, attributes: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  data: { type, attributes, ...extra },
});
const tagBindings = (key: string, value: string) => ({ data: [{ type: 'tag-bindings', attributes: { key, value } }] });

/**
 * The world's workspace, given a binding, a flat tag and (through its project, the main one) an
 * inherited binding, once per world: the tag lists the matrix reads then hold an item of each kind.
 */
const tagged = new WeakMap<World, Promise<string>>();
export function taggedWorkspace(w: World): Promise<string> {
  if (!tagged.has(w)) {
    tagged.set(
      w,
      (async () => {
        const token = (await w.org()).owner.token;
        const id = (await w.workspace()).id;
        for (const [url, body] of [
          [`/api/v2/projects/${await w.project()}/tag-bindings`, tagBindings('inherited', 'yes')],
          [`/api/v2/workspaces/${id}/tag-bindings`, tagBindings('own', 'yes')],
        ] as const) {
          const res = await w.ctx.patch(url, token, body);
          if (res.status !== 200) throw new Error(`tagging failed: ${res.status} ${res.raw}`);
        }
        return id;
      })(),
    );
  }
  return tagged.get(w)!;
}
/** The id of a new flat tag, carried by a new workspace of the main project. */
async function freshTag(w: World): Promise<string> {
  const { name: organization, owner } = await w.org();
  const workspace = (await w.freshWorkspace()).id;
  const name = unique('t');
  const added = await w.ctx.post(`/api/v2/workspaces/${workspace}/relationships/tags`, owner.token, { data: [{ type: 'tags', attributes: { name } }] });
  if (added.status !== 204) throw new Error(`tagging failed: ${added.status} ${added.raw}`);
  const listed = await w.ctx.get(`/api/v2/organizations/${organization}/tags?q=${name}`, owner.token);
  const id = listed.body?.data?.[0]?.id;
  if (listed.status !== 200 || typeof id !== 'string') throw new Error(`tag lookup failed: ${listed.status} ${listed.raw}`);
  return id;
}
const projectRelationship = (id: string) => ({ relationships: { project: { data: { type: 'projects', id } } } });

/** A new policy set holding the shared workspace in `relation`, and the body that takes it out. */
async function unlinkWorkspace(w: World, relation: 'workspaces' | 'workspace-exclusions'): Promise<CellRequest> {
  const policySetId = await w.freshPolicySet();
  const workspace = (await w.workspace()).id;
  await w.linkWorkspaces(policySetId, relation, [workspace]);
  return { params: { policy_set_id: policySetId }, body: workspaceRefs(workspace) };
}

/** A new grant on the main project for a team nobody of the matrix is on. */
async function teamAccessBody(w: World, access: string) {
  const relationships = { project: { data: { type: 'projects', id: await w.project() } }, team: { data: { type: 'teams', id: await w.freshTeam() } } };
  return doc('team-projects', { access }, { relationships });
}

async function workspaceByName(w: World, workspace: { name: string }) {
  return { ...(await org(w)), workspace_name: workspace.name };
}

/** The workspace (the rows' own unless given), and a body naming another workspace of the same project as its consumer. */
async function consumers(w: World, workspace = w.workspace()) {
  return { params: { workspace_id: (await workspace).id }, body: workspaceRefs((await w.freshWorkspace()).id) };
}

const consumed = new WeakMap<World, Promise<string>>();
/** The rows' workspace, given (once per world) a consumer in the same project, so that its list is not empty. */
function withConsumer(w: World): Promise<string> {
  if (!consumed.has(w)) {
    consumed.set(
      w,
      (async () => {
        const { params, body } = await consumers(w);
        const res = await w.ctx.post(`/api/v2/workspaces/${params.workspace_id}/relationships/remote-state-consumers`, (await w.org()).owner.token, body);
        if (res.status !== 204) throw new Error(`adding a consumer failed: ${res.status} ${res.raw}`);
        return params.workspace_id;
      })(),
    );
  }
  return consumed.get(w)!;
}

const runTriggerBody = (sourceableId: string) => ({ data: { relationships: { sourceable: { data: { type: 'workspaces', id: sourceableId } } } } });

/** A run trigger between two fresh workspaces of the main project, made by the owner; its id and target. */
async function freshRunTrigger(w: World): Promise<string> {
  return (await makeRunTrigger(w)).id;
}

async function makeRunTrigger(w: World): Promise<{ id: string; workspaceId: string }> {
  const [target, source] = [await w.freshWorkspace(), await w.freshWorkspace()];
  const res = await w.ctx.post(`/api/v2/workspaces/${target.id}/run-triggers`, (await w.org()).owner.token, runTriggerBody(source.id));
  if (res.status !== 201) throw new Error(`creating a run trigger failed: ${res.status} ${res.raw}`);
  return { id: res.body.data.id, workspaceId: target.id };
}

/** A generic configuration towards a closed local port: verifying it fails at once, and is answered all the same. */
const notificationBody = () => ({
  data: {
    type: 'notification-configurations',
    attributes: {
      name: 'matrix',
      'destination-type': 'generic',
      enabled: false,
      url: 'http://127.0.0.1:9/hook',
      token: 'matrix-token',
      triggers: ['run:created'],
    },
  },
});

/** A notification configuration of a fresh workspace of the main project (or of a fresh visible team), made by the owner. */
async function freshNotificationConfiguration(w: World, of: 'workspace' | 'team' = 'workspace'): Promise<{ id: string; ownerId: string }> {
  const ownerId = of === 'workspace' ? (await w.freshWorkspace()).id : await w.freshTeam();
  const res = await w.ctx.post(`/api/v2/${of}s/${ownerId}/notification-configurations`, (await w.org()).owner.token, notificationBody());
  if (res.status !== 201) throw new Error(`creating a notification configuration failed: ${res.status} ${res.raw}`);
  return { id: res.body.data.id, ownerId };
}

const NOTIFICATION_CONFIGURATIONS = new WeakMap<World, Map<string, Promise<{ id: string; ownerId: string }>>>();
/** One notification configuration per world and kind of owner, for the rows that only read. */
function withNotificationConfiguration(w: World, of: 'workspace' | 'team' = 'workspace'): Promise<{ id: string; ownerId: string }> {
  let made = NOTIFICATION_CONFIGURATIONS.get(w);
  if (!made) NOTIFICATION_CONFIGURATIONS.set(w, (made = new Map()));
  let one = made.get(of);
  if (!one) made.set(of, (one = freshNotificationConfiguration(w, of)));
  return one;
}

const planExportBody = (planId: string) => ({
  data: { type: 'plan-exports', attributes: { 'data-type': 'sentinel-mock-bundle-v0' }, relationships: { plan: { data: { type: 'plans', id: planId } } } },
});

/** An export (by the owner) of a fresh planned run's plan: a plan has one downloadable export of a type. */
async function freshPlanExport(w: World): Promise<string> {
  const { planId } = await w.freshRunIn('planned');
  const res = await w.ctx.post('/api/v2/plan-exports', (await w.org()).owner.token, planExportBody(planId));
  if (res.status !== 201) throw new Error(`creating a plan export failed: ${res.status} ${res.raw}`);
  return res.body.data.id;
}

const PLAN_EXPORTS = new WeakMap<World, Promise<string>>();
/** One plan export per world, for the rows that only read. */
function withPlanExport(w: World): Promise<string> {
  if (!PLAN_EXPORTS.has(w)) PLAN_EXPORTS.set(w, freshPlanExport(w));
  return PLAN_EXPORTS.get(w)!;
}

const sshKeyBody = (attributes: Record<string, unknown>) => doc('ssh-keys', attributes);
const SSH_KEY_VALUE = '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAaccessMatrixKeyAAAA\n-----END OPENSSH PRIVATE KEY-----\n';

/** A new SSH key of the organization, made by the owner; its id. */
async function freshSshKey(w: World): Promise<string> {
  const { name, owner } = await w.org();
  const res = await w.ctx.post(`/api/v2/organizations/${name}/ssh-keys`, owner.token, sshKeyBody({ name: unique('key'), value: SSH_KEY_VALUE }));
  if (res.status !== 201) throw new Error(`creating an SSH key failed: ${res.status} ${res.raw}`);
  return res.body.data.id;
}

const SSH_KEYS = new WeakMap<World, Promise<string>>();
/** One SSH key per world, for the rows that read it, rename it or assign it. */
function withSshKey(w: World): Promise<string> {
  if (!SSH_KEYS.has(w)) SSH_KEYS.set(w, freshSshKey(w));
  return SSH_KEYS.get(w)!;
}

const RUN_TRIGGERS = new WeakMap<World, Promise<{ id: string; workspaceId: string }>>();
/** One run trigger per world, for the rows that only read. */
function withRunTrigger(w: World): Promise<{ id: string; workspaceId: string }> {
  let made = RUN_TRIGGERS.get(w);
  if (!made) {
    made = makeRunTrigger(w);
    RUN_TRIGGERS.set(w, made);
  }
  return made;
}

const STATE_VERSIONS = new WeakMap<World, Promise<{ workspace: { id: string; name: string }; version: { id: string; outputId: string } }>>();
/** One workspace of the main project holding one state version (with JSON state), per world. */
function stateVersion(w: World) {
  let made = STATE_VERSIONS.get(w);
  if (!made) {
    made = (async () => {
      const workspace = await w.freshWorkspace();
      const token = (await w.org()).owner.token;
      const state = stateFile();
      await lock(w.ctx, workspace.id, token);
      const res = await w.ctx.post(
        `/api/v2/workspaces/${workspace.id}/state-versions`,
        token,
        versionBody(state, 1, { 'json-state': Buffer.from('{}').toString('base64') }),
      );
      await unlock(w.ctx, workspace.id, token);
      if (res.status !== 201) throw new Error(`state version failed: ${res.status} ${res.raw}`);
      return { workspace, version: { id: res.body.data.id as string, outputId: res.body.data.relationships.outputs.data[0].id as string } };
    })();
    STATE_VERSIONS.set(w, made);
  }
  return made;
}

/** A new workspace of the main project, locked by the organization's owner. */
async function lockedByOwner(w: World): Promise<string> {
  const workspace = await w.freshWorkspace();
  const res = await w.ctx.post(`/api/v2/workspaces/${workspace.id}/actions/lock`, (await w.org()).owner.token, { data: { type: '' } });
  if (res.status !== 200) throw new Error(`lock failed: ${res.status} ${res.raw}`);
  return workspace.id;
}

export const REQUESTS: Record<string, RowRequest> = {
  // ---- discovery and account
  'GET /api/v2/ping': { make: async () => ({}) },
  'GET /api/v2/openapi.json': { make: async () => ({}) },
  'GET /api/v2/account/details': { make: async () => ({}) },
  'GET /api/v2/users/:user_id': { make: async (w) => ({ params: await owner(w) }) },
  // The address only: every caller keeps the username the world knows it by.
  'PATCH /api/v2/account/update': { make: async () => ({ body: doc('users', { email: `${unique('me')}@example.test` }) }) },

  // ---- user tokens and /authentication-tokens/:id
  'GET /api/v2/users/:user_id/authentication-tokens': { make: async (w) => ({ params: await owner(w) }) },
  'POST /api/v2/users/:user_id/authentication-tokens': { make: async (w) => ({ params: await owner(w), body: tokenBody('matrix') }) },
  "GET /api/v2/authentication-tokens/:token_id [the owner's user token]": { make: async (w) => ({ params: { token_id: await w.userToken() } }) },
  "DELETE /api/v2/authentication-tokens/:token_id [the owner's user token]": {
    make: async (w) => ({ params: { token_id: await w.freshUserToken() } }),
  },
  'GET /api/v2/authentication-tokens/:token_id [an agent token]': { make: async (w) => ({ params: { token_id: (await w.agentToken()).id } }) },
  'DELETE /api/v2/authentication-tokens/:token_id [an agent token]': {
    make: async (w) => ({ params: { token_id: (await w.freshAgentToken()).id } }),
  },
  'GET /api/v2/authentication-tokens/:token_id [the organization token]': { make: async (w) => ({ params: { token_id: (await w.orgToken()).id } }) },
  'GET /api/v2/authentication-tokens/:token_id [the audit-trail token]': { make: async (w) => ({ params: { token_id: (await w.auditTrailToken()).id } }) },

  // ---- organizations and the organization token
  'GET /api/v2/organizations': { make: async () => ({}) },
  'POST /api/v2/organizations': {
    make: async () => {
      const name = unique('org');
      return { body: doc('organizations', { name, email: `${name}@example.test` }) };
    },
  },
  'GET /api/v2/organizations/:organization_name': { make: async (w) => ({ params: await org(w) }) },
  'GET /api/v2/organizations/:organization_name/entitlement-set': { make: async (w) => ({ params: await org(w) }) },
  // Renaming would move the organization away from every later cell; the e-mail address will do.
  'PATCH /api/v2/organizations/:organization_name': {
    make: async (w) => ({ params: await org(w), body: doc('organizations', { email: `${unique('ops')}@example.test` }) }),
  },
  'DELETE /api/v2/organizations/:organization_name': { isolate: true, make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/authentication-token [the organization token]': {
    isolate: true,
    make: async (w) => ({ params: await org(w), body: doc('authentication-token') }),
  },
  'GET /api/v2/organizations/:organization_name/authentication-token [the organization token]': {
    make: async (w) => {
      await w.orgToken();
      return { params: await org(w) };
    },
  },
  'DELETE /api/v2/organizations/:organization_name/authentication-token [the organization token]': {
    isolate: true,
    make: async (w) => {
      await w.orgToken();
      return { params: await org(w) };
    },
  },
  // A world of its own, so that creating replaces nothing (the mass-assignment test compares
  // what a create writes); deleting one changes no caller, so those cells share one.
  'POST /api/v2/organizations/:organization_name/authentication-token [the audit-trail token]': {
    isolate: true,
    make: async (w) => ({ params: await org(w), query: AUDIT_TRAILS, body: { data: { type: '' } } }),
  },
  'GET /api/v2/organizations/:organization_name/authentication-token [the audit-trail token]': {
    make: async (w) => {
      await w.auditTrailToken();
      return { params: await org(w), query: AUDIT_TRAILS };
    },
  },
  'DELETE /api/v2/organizations/:organization_name/authentication-token [the audit-trail token]': {
    make: async (w) => {
      await w.freshAuditTrailToken();
      return { params: await org(w), query: AUDIT_TRAILS };
    },
  },

  // ---- teams
  'GET /api/v2/organizations/:organization_name/teams': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/teams': {
    make: async (w) => ({ params: await org(w), body: doc('teams', { name: unique('team'), visibility: 'organization' }) }),
  },
  'GET /api/v2/teams/:team_id [a visible team]': { make: async (w) => ({ params: { team_id: await w.team('organization') } }) },
  'GET /api/v2/teams/:team_id [a secret team]': { make: async (w) => ({ params: { team_id: await w.team('secret') } }) },
  'POST /api/v2/teams/:team_id/authentication-token [a visible team]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: doc('') }),
  },
  // A fresh team each time, so the same description is free again.
  'POST /api/v2/teams/:team_id/authentication-tokens [a visible team]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: doc('authentication-tokens', { description: 'matrix' }) }),
  },
  'GET /api/v2/organizations/:organization_name/team-tokens': { make: async (w) => ({ params: await org(w) }) },
  'GET /api/v2/teams/:team_id/authentication-token [a visible team]': { make: async (w) => ({ params: { team_id: (await w.freshTeamToken()).teamId } }) },
  'DELETE /api/v2/teams/:team_id/authentication-token [a visible team]': { make: async (w) => ({ params: { team_id: (await w.freshTeamToken()).teamId } }) },
  'GET /api/v2/authentication-tokens/:token_id [a team token]': { make: async (w) => ({ params: { token_id: (await w.freshTeamToken()).id } }) },
  'DELETE /api/v2/authentication-tokens/:token_id [a team token]': { make: async (w) => ({ params: { token_id: (await w.freshTeamToken()).id } }) },
  'PATCH /api/v2/teams/:team_id [a visible team]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: doc('teams', { name: unique('renamed') }) }),
  },
  'DELETE /api/v2/teams/:team_id [a visible team]': { make: async (w) => ({ params: { team_id: await w.freshTeam() } }) },
  'POST /api/v2/teams/:team_id/relationships/users [a visible team]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: membersBody(await w.outsideUser()) }),
  },
  'DELETE /api/v2/teams/:team_id/relationships/users [a visible team]': {
    make: async (w) => {
      const team = await w.freshTeam();
      return { params: { team_id: team }, body: membersBody(await w.userOnTeam(team)) };
    },
  },
  'POST /api/v2/teams/:team_id/relationships/users [a visible team holding manage-organization-access]': {
    make: async (w) => ({
      params: { team_id: await w.freshTeam('organization', { 'manage-teams': true, 'manage-organization-access': true }) },
      body: membersBody(await w.outsideUser()),
    }),
  },
  'POST /api/v2/teams/:team_id/relationships/users [a visible team holding manage-projects]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam('organization', { 'manage-projects': true }) }, body: membersBody(await w.outsideUser()) }),
  },
  'POST /api/v2/teams/:team_id/relationships/users [a visible team with admin access to the project]': {
    make: async (w) => ({ params: { team_id: await w.freshTeamWithProjectAccess('admin') }, body: membersBody(await w.outsideUser()) }),
  },

  // ---- organization memberships
  'GET /api/v2/organizations/:organization_name/organization-memberships': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/organization-memberships': {
    make: async (w) => ({ params: await org(w), body: invitationBody(`${unique('invitee')}@example.test`) }),
  },
  'GET /api/v2/organization-memberships': { make: async () => ({}) },
  'GET /api/v2/organization-memberships/:membership_id [an invitation]': { make: async (w) => ({ params: { membership_id: await w.invitation() } }) },
  'DELETE /api/v2/organization-memberships/:membership_id [an invitation]': { make: async (w) => ({ params: { membership_id: await w.freshInvitation() } }) },
  'POST /api/v2/organization-memberships/:membership_id/actions/accept [an invitation of the caller]': {
    make: async (w) => {
      const params: Record<string, string> = {};
      return { params, contentType: 'application/vnd.api+json', asCaller: async (token) => void (params.membership_id = await w.invitationOf(token)) };
    },
  },
  'POST /api/v2/teams/:team_id/relationships/organization-memberships [a visible team]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: membershipsBody(await w.freshInvitation()) }),
  },
  'POST /api/v2/teams/:team_id/relationships/organization-memberships [the owners team]': {
    make: async (w) => ({ params: { team_id: await w.ownersTeam() }, body: membershipsBody(await w.freshInvitation()) }),
  },
  'DELETE /api/v2/teams/:team_id/relationships/organization-memberships [a visible team]': {
    make: async (w) => {
      const team = await w.freshTeam();
      const membership = await w.freshInvitation();
      await w.ctx.post(`/api/v2/teams/${team}/relationships/organization-memberships`, (await w.org()).owner.token, membershipsBody(membership));
      return { params: { team_id: team }, body: membershipsBody(membership) };
    },
  },
  'PATCH /api/v2/teams/:team_id [giving a visible team manage-policies]': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: doc('teams', { 'organization-access': { 'manage-policies': true } }) }),
  },
  'POST /api/v2/teams/:team_id/relationships/users [the owners team]': {
    make: async (w) => ({ params: { team_id: await w.ownersTeam() }, body: membersBody(await w.outsideUser()) }),
  },
  // A second owner to remove, so that the team never empties (which is a 409 of its own).
  'DELETE /api/v2/teams/:team_id/relationships/users [the owners team]': {
    make: async (w) => {
      const team = await w.ownersTeam();
      return { params: { team_id: team }, body: membersBody(await w.userOnTeam(team)) };
    },
  },

  // ---- projects
  'GET /api/v2/organizations/:organization_name/projects': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/projects': {
    make: async (w) => ({ params: await org(w), body: doc('projects', { name: unique('prj').slice(0, 40) }) }),
  },
  'GET /api/v2/projects/:project_id': { make: async (w) => ({ params: { project_id: await w.project() } }) },
  // The description only: the project keeps its name for every later cell.
  'PATCH /api/v2/projects/:project_id': {
    make: async (w) => ({ params: { project_id: await w.project() }, body: doc('projects', { description: unique('described') }) }),
  },
  'DELETE /api/v2/projects/:project_id': { make: async (w) => ({ params: { project_id: await w.freshProject() } }) },
  'POST /api/v2/projects/:project_id/relationships/workspaces [a workspace the caller may move]': {
    make: async (w) => {
      const { main, source } = await w.projects();
      const workspace = await w.freshWorkspace(source);
      return { params: { project_id: main }, body: { data: [{ type: 'workspaces', id: workspace.id }] } };
    },
  },
  'POST /api/v2/projects/:project_id/relationships/workspaces [a workspace of the default project]': {
    make: async (w) => {
      const workspace = await w.freshWorkspace(null);
      return { params: { project_id: await w.project() }, body: { data: [{ type: 'workspaces', id: workspace.id }] } };
    },
  },

  // ---- workspaces
  'GET /api/v2/organizations/:organization_name/workspaces': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/workspaces [in the project]': {
    make: async (w) => ({ params: await org(w), body: doc('workspaces', { name: unique('ws') }, projectRelationship(await w.project())) }),
  },
  'POST /api/v2/organizations/:organization_name/workspaces [in the default project]': {
    make: async (w) => ({ params: await org(w), body: doc('workspaces', { name: unique('ws') }) }),
  },
  'GET /api/v2/workspaces/:workspace_id': { make: async (w) => ({ params: { workspace_id: (await w.workspace()).id } }) },
  'PATCH /api/v2/workspaces/:workspace_id': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id }, body: doc('workspaces', { description: unique('described') }) }),
  },
  'DELETE /api/v2/workspaces/:workspace_id': { make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id } }) },
  'GET /api/v2/organizations/:organization_name/workspaces/:workspace_name': { make: async (w) => ({ params: await workspaceByName(w, await w.workspace()) }) },
  'PATCH /api/v2/organizations/:organization_name/workspaces/:workspace_name': {
    make: async (w) => ({ params: await workspaceByName(w, await w.workspace()), body: doc('workspaces', { description: unique('described') }) }),
  },
  // ---- workspace locks: a fresh workspace each cell (locked by the owner where a lock is released)
  'POST /api/v2/workspaces/:workspace_id/actions/lock': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, body: { data: { type: '', attributes: { reason: 'matrix' } } } }),
  },
  'POST /api/v2/workspaces/:workspace_id/actions/unlock': {
    make: async (w) => ({ params: { workspace_id: await lockedByOwner(w) }, contentType: 'application/vnd.api+json' }),
  },
  'POST /api/v2/workspaces/:workspace_id/actions/force-unlock': {
    make: async (w) => ({ params: { workspace_id: await lockedByOwner(w) }, contentType: 'application/vnd.api+json' }),
  },
  // ---- safe delete: a fresh workspace each cell
  'POST /api/v2/workspaces/:workspace_id/actions/safe-delete': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, contentType: 'application/vnd.api+json' }),
  },
  'POST /api/v2/organizations/:organization_name/workspaces/:workspace_name/actions/safe-delete': {
    make: async (w) => ({ params: await workspaceByName(w, await w.freshWorkspace()), contentType: 'application/vnd.api+json' }),
  },
  // ---- state versions
  // Only the lock holder writes state: each cell takes the lock of a fresh workspace as itself first.
  'POST /api/v2/workspaces/:workspace_id/state-versions': {
    make: async (w) => {
      const workspace = await w.freshWorkspace();
      return {
        params: { workspace_id: workspace.id },
        body: versionBody(stateFile(), 1),
        asCaller: async (token) => {
          await w.ctx.post(`/api/v2/workspaces/${workspace.id}/actions/lock`, token, { data: { type: '' } });
        },
      };
    },
  },
  'GET /api/v2/workspaces/:workspace_id/current-state-version': { make: async (w) => ({ params: { workspace_id: (await stateVersion(w)).workspace.id } }) },
  'GET /api/v2/workspaces/:workspace_id/current-state-version-outputs': {
    make: async (w) => ({ params: { workspace_id: (await stateVersion(w)).workspace.id } }),
  },
  'GET /api/v2/workspaces/:workspace_id/resources': { make: async (w) => ({ params: { workspace_id: (await stateVersion(w)).workspace.id } }) },
  'GET /api/v2/state-versions': {
    make: async (w) => ({ query: `filter[workspace][name]=${(await stateVersion(w)).workspace.name}&filter[organization][name]=${(await w.org()).name}` }),
  },
  'GET /api/v2/state-versions/:state_version_id': { make: async (w) => ({ params: { state_version_id: (await stateVersion(w)).version.id } }) },
  'GET /api/v2/state-versions/:state_version_id/download': { make: async (w) => ({ params: { state_version_id: (await stateVersion(w)).version.id } }) },
  'GET /api/v2/state-versions/:state_version_id/json-download': { make: async (w) => ({ params: { state_version_id: (await stateVersion(w)).version.id } }) },
  'GET /api/v2/state-versions/:state_version_id/outputs': { make: async (w) => ({ params: { state_version_id: (await stateVersion(w)).version.id } }) },
  'GET /api/v2/state-version-outputs/:state_version_output_id': {
    make: async (w) => ({ params: { state_version_output_id: (await stateVersion(w)).version.outputId } }),
  },
  'DELETE /api/v2/organizations/:organization_name/workspaces/:workspace_name': {
    make: async (w) => ({ params: await workspaceByName(w, await w.freshWorkspace()) }),
  },
  'GET /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers': { make: async (w) => ({ params: { workspace_id: await withConsumer(w) } }) },
  'POST /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers': { make: (w) => consumers(w) },
  // A fresh workspace each time: replacing drops the consumers an earlier request gave.
  'PATCH /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers': { make: (w) => consumers(w, w.freshWorkspace()) },
  'DELETE /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers': { make: (w) => consumers(w) },

  // ---- tags: writes go to a fresh workspace or project each (the limit of 10 bindings is never
  // reached, and every write adds rows: the mass-assignment suite compares them)
  'GET /api/v2/workspaces/:workspace_id/tag-bindings': { make: async (w) => ({ params: { workspace_id: await taggedWorkspace(w) } }) },
  'PATCH /api/v2/workspaces/:workspace_id/tag-bindings': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, body: tagBindings(unique('k'), 'v') }),
  },
  'GET /api/v2/workspaces/:workspace_id/effective-tag-bindings': { make: async (w) => ({ params: { workspace_id: await taggedWorkspace(w) } }) },
  'GET /api/v2/workspaces/:workspace_id/relationships/tags': { make: async (w) => ({ params: { workspace_id: await taggedWorkspace(w) } }) },
  'POST /api/v2/workspaces/:workspace_id/relationships/tags': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, body: { data: [{ type: 'tags', attributes: { name: unique('t') } }] } }),
  },
  'DELETE /api/v2/workspaces/:workspace_id/relationships/tags': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id }, body: { data: [{ type: 'tags', attributes: { name: 'matrix-flat' } }] } }),
  },
  'GET /api/v2/projects/:project_id/tag-bindings': { make: async (w) => ({ params: { project_id: (await taggedWorkspace(w), await w.project()) } }) },
  'PATCH /api/v2/projects/:project_id/tag-bindings': {
    make: async (w) => ({ params: { project_id: await w.freshProject() }, body: tagBindings(unique('k'), 'v') }),
  },
  'GET /api/v2/projects/:project_id/effective-tag-bindings': { make: async (w) => ({ params: { project_id: (await taggedWorkspace(w), await w.project()) } }) },
  'GET /api/v2/organizations/:organization_name/tags': { make: async (w) => (await taggedWorkspace(w), { params: await org(w) }) },
  'DELETE /api/v2/organizations/:organization_name/tags': {
    make: async (w) => ({ params: await org(w), body: { data: [{ type: 'tags', id: await freshTag(w) }] } }),
  },
  'POST /api/v2/tags/:tag_id/relationships/workspaces': {
    make: async (w) => ({ params: { tag_id: await freshTag(w) }, body: { data: [{ type: 'workspaces', id: (await w.freshWorkspace()).id }] } }),
  },

  // ---- configuration versions
  'POST /api/v2/workspaces/:workspace_id/configuration-versions': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id }, body: doc('configuration-versions', { 'auto-queue-runs': false }) }),
  },
  'GET /api/v2/workspaces/:workspace_id/configuration-versions': { make: async (w) => ({ params: { workspace_id: (await w.workspace()).id } }) },
  'GET /api/v2/configuration-versions/:configuration_version_id': {
    make: async (w) => ({ params: { configuration_version_id: await w.freshConfigurationVersion() } }),
  },
  'GET /api/v2/configuration-versions/:configuration_version_id/download': {
    make: async (w) => ({ params: { configuration_version_id: await w.freshConfigurationVersion(true) } }),
  },
  'POST /api/v2/configuration-versions/:configuration_version_id/actions/archive': {
    // An uploaded version with a newer one after it: not the workspace's current version.
    make: async (w) => {
      const id = await w.freshConfigurationVersion(true);
      await w.freshConfigurationVersion();
      return { params: { configuration_version_id: id }, body: {} };
    },
  },

  // ---- runs
  'POST /api/v2/runs': {
    make: async (w) => {
      const { workspaceId, cvId } = await w.freshRunnableWorkspace();
      const relationships = {
        workspace: { data: { type: 'workspaces', id: workspaceId } },
        'configuration-version': { data: { type: 'configuration-versions', id: cvId } },
      };
      return { body: doc('runs', { message: 'matrix' }, { relationships }) };
    },
  },
  'GET /api/v2/runs/:run_id': { make: async (w) => ({ params: { run_id: (await w.run()).id } }) },
  'GET /api/v2/workspaces/:workspace_id/runs': { make: async (w) => ({ params: { workspace_id: (await w.run()).workspaceId } }) },
  'POST /api/v2/runs/:run_id/actions/discard': { make: async (w) => ({ params: { run_id: await w.freshPendingRun() }, body: { comment: 'matrix' } }) },
  'POST /api/v2/runs/:run_id/actions/apply': { make: async (w) => ({ params: { run_id: (await w.freshRunIn('planned')).id }, body: { comment: 'matrix' } }) },
  'POST /api/v2/runs/:run_id/actions/force-cancel': {
    make: async (w) => {
      // Force-cancel follows a cancel request whose cool-off has passed.
      const run = await w.freshRunIn('planning');
      await w.ctx.database.db.updateTable('jobs').set({ cancel_requested_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', run.planId).execute();
      return { params: { run_id: run.id }, body: {} };
    },
  },
  'POST /api/v2/runs/:run_id/actions/force-execute': { make: async (w) => ({ params: { run_id: await w.freshPendingRun() }, body: {} }) },
  'GET /api/v2/organizations/:organization_name/runs': { make: async (w) => (await w.run(), { params: await org(w) }) },
  'GET /api/v2/organizations/:organization_name/runs/queue': { make: async (w) => (await w.run(), { params: await org(w) }) },
  'GET /api/v2/runs/:run_id/run-events': { make: async (w) => ({ params: { run_id: (await w.plannedRun()).id } }) },
  'GET /api/v2/run-events/:run_event_id': {
    make: async (w) => {
      const { id } = await w.plannedRun();
      const [event] = await w.ctx.database.db.selectFrom('run_events').select('id').where('run_id', '=', id).execute();
      return { params: { run_event_id: event!.id } };
    },
  },
  'POST /api/v2/runs/:run_id/comments': { make: async (w) => ({ params: { run_id: (await w.plannedRun()).id }, body: doc('comments', { body: 'matrix' }) }) },
  'GET /api/v2/runs/:run_id/comments': { make: async (w) => ({ params: { run_id: (await w.plannedRun()).id } }) },
  'GET /api/v2/comments/:comment_id': { make: async (w) => ({ params: { comment_id: await w.comment() } }) },
  'GET /api/v2/admin/runs': { make: async (w) => (await w.run(), { query: 'include=workspace,workspace.organization' }) },
  'GET /api/v2/admin/workspaces': {
    make: async (w) => (await w.run(), { query: 'include=organization,current_run&sort=-current-run.created-at&filter[current_run][status]=plan_queued' }),
  },
  'GET /api/v2/admin/organizations': { make: async (w) => (await w.org(), { query: 'include=owners' }) },
  'GET /api/v2/admin/organizations/:organization_name': { make: async (w) => ({ params: await org(w) }) },
  'DELETE /api/v2/admin/organizations/:organization_name': { isolate: true, make: async (w) => ({ params: await org(w) }) },
  'GET /api/v2/admin/workspaces/:workspace_id': { make: async (w) => ({ params: { workspace_id: (await w.workspace()).id } }) },
  'DELETE /api/v2/admin/workspaces/:workspace_id': { make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id } }) },
  'POST /api/v2/admin/runs/:run_id/actions/force-cancel': { make: async (w) => ({ params: { run_id: await w.freshRun() }, body: {} }) },
  'GET /api/v2/plans/:plan_id': { make: async (w) => ({ params: { plan_id: (await w.plannedRun()).planId } }) },
  'GET /api/v2/applies/:apply_id': { make: async (w) => ({ params: { apply_id: (await w.plannedRun()).applyId } }) },
  'GET /api/v2/plans/:plan_id/json-output': { make: async (w) => ({ params: { plan_id: (await w.plannedRun()).planId } }) },
  'GET /api/v2/plans/:plan_id/json-output-redacted': { make: async (w) => ({ params: { plan_id: (await w.plannedRun()).planId } }) },
  'GET /api/v2/runs/:run_id/policy-checks': { make: async (w) => ({ params: { run_id: (await w.policyCheck()).runId } }) },
  'GET /api/v2/policy-checks/:policy_check_id': { make: async (w) => ({ params: { policy_check_id: (await w.policyCheck()).checkId } }) },
  'GET /api/v2/policy-checks/:policy_check_id/output': { make: async (w) => ({ params: { policy_check_id: (await w.policyCheck()).checkId } }) },
  'POST /api/v2/policy-checks/:policy_check_id/actions/override': {
    make: async (w) => ({ params: { policy_check_id: (await w.freshSoftFailedCheck()).checkId }, body: {} }),
  },
  'POST /api/v2/runs/:run_id/actions/cancel': { make: async (w) => ({ params: { run_id: await w.freshRun() }, body: {} }) },

  // ---- workspace team access
  'GET /api/v2/team-workspaces': {
    make: async (w) => {
      await w.freshTeamWorkspace();
      return { query: `filter[workspace][id]=${(await w.workspace()).id}` };
    },
  },
  'POST /api/v2/team-workspaces [read access for another team]': {
    make: async (w) => {
      const relationships = {
        workspace: { data: { type: 'workspaces', id: (await w.workspace()).id } },
        team: { data: { type: 'teams', id: await w.freshTeam() } },
      };
      return { body: doc('team-workspaces', { access: 'read' }, { relationships }) };
    },
  },
  'GET /api/v2/team-workspaces/:team_workspace_id': { make: async (w) => ({ params: { team_workspace_id: await w.freshTeamWorkspace() } }) },
  "PATCH /api/v2/team-workspaces/:team_workspace_id [another team's read access, raised to write]": {
    make: async (w) => ({ params: { team_workspace_id: await w.freshTeamWorkspace() }, body: doc('team-workspaces', { access: 'write' }) }),
  },
  'DELETE /api/v2/team-workspaces/:team_workspace_id': { make: async (w) => ({ params: { team_workspace_id: await w.freshTeamWorkspace() } }) },

  // ---- run triggers: each create and delete on a fresh pair of workspaces of the main project
  'GET /api/v2/workspaces/:workspace_id/run-triggers': {
    make: async (w) => ({ params: { workspace_id: (await withRunTrigger(w)).workspaceId }, query: 'filter[run-trigger][type]=inbound&include=sourceable' }),
  },
  'POST /api/v2/workspaces/:workspace_id/run-triggers': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, body: runTriggerBody((await w.freshWorkspace()).id) }),
  },
  'GET /api/v2/run-triggers/:run_trigger_id': { make: async (w) => ({ params: { run_trigger_id: (await withRunTrigger(w)).id }, query: 'include=workspace' }) },
  'DELETE /api/v2/run-triggers/:run_trigger_id': { make: async (w) => ({ params: { run_trigger_id: await freshRunTrigger(w) } }) },

  // ---- notification configurations: each write on a fresh workspace's (or team's) own configuration
  'GET /api/v2/workspaces/:workspace_id/notification-configurations': {
    make: async (w) => ({ params: { workspace_id: (await withNotificationConfiguration(w)).ownerId } }),
  },
  'POST /api/v2/workspaces/:workspace_id/notification-configurations': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, body: notificationBody() }),
  },
  'GET /api/v2/teams/:team_id/notification-configurations': {
    make: async (w) => ({ params: { team_id: (await withNotificationConfiguration(w, 'team')).ownerId } }),
  },
  'POST /api/v2/teams/:team_id/notification-configurations': {
    make: async (w) => ({ params: { team_id: await w.freshTeam() }, body: notificationBody() }),
  },
  "GET /api/v2/notification-configurations/:notification_configuration_id [a workspace's]": {
    make: async (w) => ({ params: { notification_configuration_id: (await withNotificationConfiguration(w)).id } }),
  },
  "PATCH /api/v2/notification-configurations/:notification_configuration_id [a workspace's]": {
    make: async (w) => ({
      params: { notification_configuration_id: (await freshNotificationConfiguration(w)).id },
      body: { data: { type: 'notification-configurations', attributes: { name: 'renamed', enabled: true } } },
    }),
  },
  "DELETE /api/v2/notification-configurations/:notification_configuration_id [a workspace's]": {
    make: async (w) => ({ params: { notification_configuration_id: (await freshNotificationConfiguration(w)).id } }),
  },
  "POST /api/v2/notification-configurations/:notification_configuration_id/actions/verify [a workspace's]": {
    make: async (w) => ({ params: { notification_configuration_id: (await freshNotificationConfiguration(w)).id }, body: {} }),
  },
  "GET /api/v2/notification-configurations/:notification_configuration_id [a team's]": {
    make: async (w) => ({ params: { notification_configuration_id: (await withNotificationConfiguration(w, 'team')).id } }),
  },
  "PATCH /api/v2/notification-configurations/:notification_configuration_id [a team's]": {
    make: async (w) => ({
      params: { notification_configuration_id: (await freshNotificationConfiguration(w, 'team')).id },
      body: { data: { type: 'notification-configurations', attributes: { name: 'renamed', enabled: true } } },
    }),
  },
  "DELETE /api/v2/notification-configurations/:notification_configuration_id [a team's]": {
    make: async (w) => ({ params: { notification_configuration_id: (await freshNotificationConfiguration(w, 'team')).id } }),
  },
  "POST /api/v2/notification-configurations/:notification_configuration_id/actions/verify [a team's]": {
    make: async (w) => ({ params: { notification_configuration_id: (await freshNotificationConfiguration(w, 'team')).id }, body: {} }),
  },

  // ---- plan exports: each create of a fresh planned run's plan, each delete of a fresh export
  'POST /api/v2/plan-exports': { make: async (w) => ({ body: planExportBody((await w.freshRunIn('planned')).planId) }) },
  'GET /api/v2/plan-exports/:plan_export_id': { make: async (w) => ({ params: { plan_export_id: await withPlanExport(w) } }) },
  'GET /api/v2/plan-exports/:plan_export_id/download': { make: async (w) => ({ params: { plan_export_id: await withPlanExport(w) } }) },
  'DELETE /api/v2/plan-exports/:plan_export_id': { make: async (w) => ({ params: { plan_export_id: await freshPlanExport(w) } }) },

  // ---- SSH keys: each delete on a fresh key; the others on the world's key
  'GET /api/v2/organizations/:organization_name/ssh-keys': {
    make: async (w) => {
      await withSshKey(w);
      return { params: await org(w) };
    },
  },
  'POST /api/v2/organizations/:organization_name/ssh-keys': {
    make: async (w) => ({ params: await org(w), body: sshKeyBody({ name: unique('key'), value: SSH_KEY_VALUE }) }),
  },
  'GET /api/v2/ssh-keys/:ssh_key_id': { make: async (w) => ({ params: { ssh_key_id: await withSshKey(w) } }) },
  'PATCH /api/v2/ssh-keys/:ssh_key_id': { make: async (w) => ({ params: { ssh_key_id: await withSshKey(w) }, body: sshKeyBody({ name: unique('key') }) }) },
  'DELETE /api/v2/ssh-keys/:ssh_key_id': { make: async (w) => ({ params: { ssh_key_id: await freshSshKey(w) } }) },
  'PATCH /api/v2/workspaces/:workspace_id/relationships/ssh-key': {
    make: async (w) => ({ params: { workspace_id: (await w.freshWorkspace()).id }, body: doc('workspaces', { id: await withSshKey(w) }) }),
  },

  // ---- project team access
  'GET /api/v2/team-projects': {
    make: async (w) => {
      await w.teamAccess();
      return { query: `filter[project][id]=${await w.project()}` };
    },
  },
  'POST /api/v2/team-projects [write access for another team]': { make: async (w) => ({ body: await teamAccessBody(w, 'write') }) },
  'POST /api/v2/team-projects [admin access for another team]': { make: async (w) => ({ body: await teamAccessBody(w, 'admin') }) },
  'GET /api/v2/team-projects/:team_project_id': { make: async (w) => ({ params: { team_project_id: await w.teamAccess() } }) },
  "PATCH /api/v2/team-projects/:team_project_id [another team's write access, raised to maintain]": {
    make: async (w) => ({ params: { team_project_id: await w.freshTeamAccess() }, body: doc('team-projects', { access: 'maintain' }) }),
  },
  "PATCH /api/v2/team-projects/:team_project_id [the projectCustom team's grant, raised to admin]": {
    make: async (w) => ({ params: { team_project_id: (await w.freshProjectWithGrants()).customGrant }, body: doc('team-projects', { access: 'admin' }) }),
  },
  'DELETE /api/v2/team-projects/:team_project_id': { make: async (w) => ({ params: { team_project_id: await w.freshTeamAccess() } }) },

  // ---- policy sets and parameters
  'GET /api/v2/organizations/:organization_name/policy-sets': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/policy-sets': {
    make: async (w) => ({ params: await org(w), body: doc('policy-sets', { name: unique('ps') }) }),
  },
  'GET /api/v2/policy-sets/:policy_set_id': { make: async (w) => ({ params: { policy_set_id: await w.policySet() } }) },
  'PATCH /api/v2/policy-sets/:policy_set_id': {
    make: async (w) => ({ params: { policy_set_id: await w.policySet() }, body: doc('policy-sets', { description: unique('described') }) }),
  },
  'DELETE /api/v2/policy-sets/:policy_set_id': { make: async (w) => ({ params: { policy_set_id: await w.freshPolicySet() } }) },
  'POST /api/v2/policy-sets/:policy_set_id/relationships/projects': {
    make: async (w) => ({ params: { policy_set_id: await w.freshPolicySet() }, body: projectRefs(await w.project()) }),
  },
  'DELETE /api/v2/policy-sets/:policy_set_id/relationships/projects': {
    make: async (w) => {
      const project = await w.project();
      return { params: { policy_set_id: await w.freshPolicySet([project]) }, body: projectRefs(project) };
    },
  },
  'POST /api/v2/policy-sets/:policy_set_id/relationships/workspaces': {
    make: async (w) => ({ params: { policy_set_id: await w.freshPolicySet() }, body: workspaceRefs((await w.workspace()).id) }),
  },
  'DELETE /api/v2/policy-sets/:policy_set_id/relationships/workspaces': { make: (w) => unlinkWorkspace(w, 'workspaces') },
  'POST /api/v2/policy-sets/:policy_set_id/relationships/workspace-exclusions': {
    make: async (w) => ({ params: { policy_set_id: await w.freshPolicySet() }, body: workspaceRefs((await w.workspace()).id) }),
  },
  'DELETE /api/v2/policy-sets/:policy_set_id/relationships/workspace-exclusions': { make: (w) => unlinkWorkspace(w, 'workspace-exclusions') },
  'GET /api/v2/policy-sets/:policy_set_id/parameters': { make: async (w) => ({ params: { policy_set_id: await w.policySet() } }) },
  'POST /api/v2/policy-sets/:policy_set_id/parameters': {
    make: async (w) => ({
      params: { policy_set_id: await w.policySet() },
      body: doc('vars', { key: unique('key'), value: 'v', category: 'policy-set' }),
    }),
  },
  'GET /api/v2/policy-sets/:policy_set_id/parameters/:parameter_id': {
    make: async (w) => ({ params: { policy_set_id: await w.policySet(), parameter_id: await w.parameter() } }),
  },
  'PATCH /api/v2/policy-sets/:policy_set_id/parameters/:parameter_id': {
    make: async (w) => {
      const parameter = await w.parameter();
      return {
        params: { policy_set_id: await w.policySet(), parameter_id: parameter },
        body: { data: { type: 'vars', id: parameter, attributes: { value: unique('value') } } },
      };
    },
  },
  'DELETE /api/v2/policy-sets/:policy_set_id/parameters/:parameter_id': {
    make: async (w) => ({ params: { policy_set_id: await w.policySet(), parameter_id: await w.freshParameter() } }),
  },

  // ---- policies and policy set versions
  'GET /api/v2/organizations/:organization_name/policies': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/policies': {
    make: async (w) => ({ params: await org(w), body: doc('policies', { name: unique('pol'), 'enforcement-level': 'advisory' }) }),
  },
  'GET /api/v2/policies/:policy_id': { make: async (w) => ({ params: { policy_id: await w.policy() } }) },
  'PATCH /api/v2/policies/:policy_id': {
    make: async (w) => ({ params: { policy_id: await w.policy() }, body: doc('policies', { description: unique('described') }) }),
  },
  'DELETE /api/v2/policies/:policy_id': { make: async (w) => ({ params: { policy_id: await w.freshPolicy() } }) },
  'PUT /api/v2/policies/:policy_id/upload': {
    make: async (w) => ({ params: { policy_id: await w.policy() }, body: 'main = rule { true }', contentType: 'application/octet-stream' }),
  },
  'GET /api/v2/policies/:policy_id/download': { make: async (w) => ({ params: { policy_id: await w.policy() } }) },
  'POST /api/v2/policy-sets/:policy_set_id/relationships/policies': {
    make: async (w) => ({ params: { policy_set_id: await w.freshPolicySet() }, body: { data: [{ id: await w.policy(), type: 'policies' }] } }),
  },
  'DELETE /api/v2/policy-sets/:policy_set_id/relationships/policies': {
    make: async (w) => {
      const policy = await w.policy();
      return { params: { policy_set_id: await w.freshPolicySetHolding([policy]) }, body: { data: [{ id: policy, type: 'policies' }] } };
    },
  },
  // go-tfe sends the JSON:API content type and no body.
  'POST /api/v2/policy-sets/:policy_set_id/versions': {
    make: async (w) => ({ params: { policy_set_id: await w.freshPolicySet() }, contentType: 'application/vnd.api+json' }),
  },
  'GET /api/v2/policy-set-versions/:policy_set_version_id': { make: async (w) => ({ params: { policy_set_version_id: await w.policySetVersion() } }) },
  // ---- workspace variables: the shared workspace
  // Lists hold an item, so that the OpenAPI suite checks one against the schema.
  'GET /api/v2/workspaces/:workspace_id/vars': {
    make: async (w) => {
      await w.variable();
      return { params: { workspace_id: (await w.workspace()).id } };
    },
  },
  'POST /api/v2/workspaces/:workspace_id/vars': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id }, body: doc('vars', { key: unique('key'), value: 'v', category: 'terraform' }) }),
  },
  'GET /api/v2/workspaces/:workspace_id/vars/:variable_id': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id, variable_id: await w.variable() } }),
  },
  'PATCH /api/v2/workspaces/:workspace_id/vars/:variable_id': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id, variable_id: await w.variable() }, body: doc('vars', { value: unique('value') }) }),
  },
  'DELETE /api/v2/workspaces/:workspace_id/vars/:variable_id': {
    make: async (w) => ({ params: { workspace_id: (await w.workspace()).id, variable_id: await w.freshVariable() } }),
  },
  'GET /api/v2/vars': {
    make: async (w) => {
      await w.variable();
      return { query: `filter[organization][name]=${(await w.org()).name}&filter[workspace][name]=${(await w.workspace()).name}` };
    },
  },
  'POST /api/v2/vars': {
    make: async (w) => ({
      body: doc(
        'vars',
        { key: unique('key'), value: 'v', category: 'env' },
        { relationships: { workspace: { data: { type: 'workspaces', id: (await w.workspace()).id } } } },
      ),
    }),
  },
  'PATCH /api/v2/vars/:variable_id': { make: async (w) => ({ params: { variable_id: await w.variable() }, body: doc('vars', { value: unique('value') }) }) },
  'DELETE /api/v2/vars/:variable_id': { make: async (w) => ({ params: { variable_id: await w.freshVariable() } }) },
  'GET /api/v2/workspaces/:workspace_id/all-vars': { make: async (w) => ({ params: { workspace_id: (await w.workspace()).id } }) },

  // ---- variable sets: one the organization owns, unless the row says the project's
  'GET /api/v2/organizations/:organization_name/varsets': {
    make: async (w) => {
      await w.variableSet();
      return { params: await org(w) };
    },
  },
  'POST /api/v2/organizations/:organization_name/varsets': {
    make: async (w) => ({ params: await org(w), body: doc('varsets', { name: unique('varset'), global: false }) }),
  },
  'POST /api/v2/organizations/:organization_name/varsets [owned by the project]': {
    make: async (w) => ({
      params: await org(w),
      body: doc('varsets', { name: unique('varset'), global: false }, { relationships: { parent: { data: { type: 'projects', id: await w.project() } } } }),
    }),
  },
  'GET /api/v2/workspaces/:workspace_id/varsets': {
    make: async (w) => {
      await w.globalVariableSet();
      return { params: { workspace_id: (await w.workspace()).id } };
    },
  },
  'GET /api/v2/projects/:project_id/varsets': {
    make: async (w) => {
      await w.projectVariableSet();
      return { params: { project_id: await w.project() } };
    },
  },
  'GET /api/v2/varsets/:varset_id': { make: async (w) => ({ params: { varset_id: await w.variableSet() } }) },
  'GET /api/v2/varsets/:varset_id [owned by the project]': { make: async (w) => ({ params: { varset_id: await w.projectVariableSet() } }) },
  'PATCH /api/v2/varsets/:varset_id': {
    make: async (w) => ({ params: { varset_id: await w.variableSet() }, body: doc('varsets', { description: unique('d') }) }),
  },
  'PATCH /api/v2/varsets/:varset_id [owned by the project]': {
    make: async (w) => ({ params: { varset_id: await w.projectVariableSet() }, body: doc('varsets', { description: unique('d') }) }),
  },
  'DELETE /api/v2/varsets/:varset_id': { make: async (w) => ({ params: { varset_id: await w.freshVariableSet() } }) },
  // A fresh set each cell, so that every cell (and a repeated request) really links something.
  'POST /api/v2/varsets/:varset_id/relationships/workspaces': {
    make: async (w) => ({ params: { varset_id: await w.freshVariableSet() }, body: workspaceRefs((await w.workspace()).id) }),
  },
  'DELETE /api/v2/varsets/:varset_id/relationships/workspaces': {
    make: async (w) => ({ params: { varset_id: await w.variableSet() }, body: workspaceRefs((await w.workspace()).id) }),
  },
  'POST /api/v2/varsets/:varset_id/relationships/projects': {
    make: async (w) => ({ params: { varset_id: await w.freshVariableSet() }, body: projectRefs(await w.project()) }),
  },
  'DELETE /api/v2/varsets/:varset_id/relationships/projects': {
    make: async (w) => ({ params: { varset_id: await w.variableSet() }, body: projectRefs(await w.project()) }),
  },
  'GET /api/v2/varsets/:varset_id/relationships/vars': {
    make: async (w) => {
      await w.setVariable();
      return { params: { varset_id: await w.variableSet() } };
    },
  },
  'POST /api/v2/varsets/:varset_id/relationships/vars': {
    make: async (w) => ({ params: { varset_id: await w.variableSet() }, body: doc('vars', { key: unique('key'), value: 'v', category: 'env' }) }),
  },
  'GET /api/v2/varsets/:varset_id/relationships/vars/:set_variable_id': {
    make: async (w) => ({ params: { varset_id: await w.variableSet(), set_variable_id: await w.setVariable() } }),
  },
  'PATCH /api/v2/varsets/:varset_id/relationships/vars/:set_variable_id': {
    make: async (w) => ({
      params: { varset_id: await w.variableSet(), set_variable_id: await w.setVariable() },
      body: doc('vars', { value: unique('value') }),
    }),
  },
  'DELETE /api/v2/varsets/:varset_id/relationships/vars/:set_variable_id': {
    make: async (w) => ({ params: { varset_id: await w.variableSet(), set_variable_id: await w.freshSetVariable() } }),
  },

  // ---- agent pools, agent tokens, agents
  'GET /api/v2/organizations/:organization_name/agent-pools': { make: async (w) => ({ params: await org(w) }) },
  'POST /api/v2/organizations/:organization_name/agent-pools': { make: async (w) => ({ params: await org(w), body: poolBody(unique('pool')) }) },
  'GET /api/v2/agent-pools/:agent_pool_id': { make: async (w) => ({ params: { agent_pool_id: await w.pool() } }) },
  'PATCH /api/v2/agent-pools/:agent_pool_id': {
    make: async (w) => ({ params: { agent_pool_id: await w.pool() }, body: doc('agent-pools', { 'organization-scoped': true }) }),
  },
  'DELETE /api/v2/agent-pools/:agent_pool_id': { make: async (w) => ({ params: { agent_pool_id: await w.freshPool() } }) },
  'GET /api/v2/agent-pools/:agent_pool_id/authentication-tokens': { make: async (w) => ({ params: { agent_pool_id: await w.pool() } }) },
  'POST /api/v2/agent-pools/:agent_pool_id/authentication-tokens': {
    make: async (w) => ({ params: { agent_pool_id: await w.pool() }, body: tokenBody('runner') }),
  },
  'GET /api/v2/agent-pools/:agent_pool_id/agents': {
    make: async (w) => {
      await w.agent();
      return { params: { agent_pool_id: await w.pool() } };
    },
  },
  'GET /api/v2/agents/:agent_id': { make: async (w) => ({ params: { agent_id: await w.agent() } }) },
  'DELETE /api/v2/agents/:agent_id': { make: async (w) => ({ params: { agent_id: await w.freshExitedAgent() } }) },

  // ---- the agent endpoints
  'POST /api/agent/register': { make: async () => ({ body: { name: unique('agent') }, contentType: 'application/json' }) },
  'POST /api/agent/status': {
    make: async (w) => ({ body: { id: await w.agent(), status: 'idle' }, contentType: 'application/json' }),
  },
  // ---- the job protocol (each cell its own job, held by the world's agent)
  'POST /api/agent/jobs/claim': {
    make: async (w) => {
      const runner = `${await w.agent()}/0`;
      // A queued job of the pool for the claim to take.
      await agentRun(w.ctx, await w.org(), await w.pool());
      return { body: { runner }, contentType: 'application/json' };
    },
  },
  'POST /api/agent/jobs/:job_id/start': { make: async (w) => jobRequest(await w.freshAgentJob(), (runner) => ({ runner })) },
  'GET /api/agent/jobs/:job_id/inputs': {
    make: async (w) => {
      const { jobId, runner } = await w.freshAgentJob();
      return { params: { job_id: jobId }, query: `runner=${encodeURIComponent(runner)}` };
    },
  },
  'POST /api/agent/jobs/:job_id/log': { make: async (w) => jobRequest(await w.freshAgentJob(), (runner) => ({ runner, chunk: 'eA==' })) },
  'POST /api/agent/jobs/:job_id/heartbeat': { make: async (w) => jobRequest(await w.freshAgentJob(), (runner) => ({ runner })) },
  'POST /api/agent/jobs/:job_id/planned': {
    make: async (w) =>
      jobRequest(await w.freshAgentJob(), (runner) => ({ runner, 'plan-file': 'eA==', 'plan-json': '{}', counts: JOB_COUNTS, 'has-changes': false })),
  },
  'POST /api/agent/jobs/:job_id/applied': {
    make: async (w) => jobRequest(await w.freshAgentJob('apply'), (runner) => ({ runner, state: null, counts: JOB_COUNTS })),
  },
  'POST /api/agent/jobs/:job_id/failed': { make: async (w) => jobRequest(await w.freshAgentJob(), (runner) => ({ runner, reason: 'matrix' })) },
};
