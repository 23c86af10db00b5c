// The world an access-matrix row runs in: one organization with a caller of every kind of
// matrix.ts and one of every resource. Everything is made on first use, so a row pays only for
// what it touches; rows that destroy or change something take a `fresh…` copy of their target,
// so later cells and rows still find the shared resources as they were.
import type { Response, TestContext } from '../helpers/harness.ts';
import { unique } from '../helpers/harness.ts';
import { createAgentToken, createPool, registerAgent, agentCall } from '../helpers/agents.ts';
import { agentRun, holdJob } from '../helpers/agent-jobs.ts';
import { createPolicySet, createParameter, projectRefs, workspaceRefs } from '../helpers/policy-sets.ts';
import { createProject, createWorkspace, grant, type Org } from '../helpers/projects.ts';
import { advancePlan } from '../helpers/runner.ts';
import type { CallerKind } from './matrix.ts';

async function must(res: Promise<Response>, status: number, what: string): Promise<any> {
  const r = await res;
  if (r.status !== status) throw new Error(`world set-up: ${what} answered ${r.status}: ${r.raw}`);
  return r.body?.data;
}

type Member = Awaited<ReturnType<TestContext['member']>>;

export class World {
  readonly ctx: TestContext;
  readonly #memo = new Map<string, Promise<unknown>>();

  constructor(ctx: TestContext) {
    this.ctx = ctx;
  }

  #once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!this.#memo.has(key)) this.#memo.set(key, make());
    return this.#memo.get(key) as Promise<T>;
  }

  org = (): Promise<Org> => this.#once('org', () => this.ctx.organization());

  async #owner() {
    return (await this.org()).owner;
  }

  async #post(url: string, body: unknown, status: number, what: string) {
    return must(this.ctx.post(url, (await this.#owner()).token, body), status, what);
  }

  /** A member on a team of its own holding `access` (organization permissions). */
  #teamMember(key: string, access: Record<string, boolean> = {}): Promise<Member> {
    return this.#once(`member:${key}`, async () => this.ctx.member(await this.org(), access));
  }

  /** The bearer token of a caller of `kind` (null: send none). */
  async token(kind: CallerKind): Promise<string | null> {
    switch (kind) {
      case 'owner':
        return (await this.#owner()).token;
      case 'manageProjects':
        return (await this.#teamMember(kind, { 'manage-projects': true })).token;
      case 'projectRead':
      case 'projectAdmin':
      case 'projectCustom':
        // Their access exists before they act, whatever the row addresses.
        await this.projects();
        return (await this.#teamMember(kind)).token;
      case 'member':
        return (await this.#teamMember(kind)).token;
      case 'outsider':
        return this.#once('outsider', async () => (await this.ctx.organization()).owner.token);
      case 'orgToken':
        return (await this.orgToken()).secret;
      case 'agentToken':
        return (await this.agentToken()).secret;
      case 'revoked':
        return this.#once('revoked', async () => {
          const owner = await this.#owner();
          const token = await this.#post(`/api/v2/users/${owner.id}/authentication-tokens`, tokenBody('soon revoked'), 201, 'user token');
          await must(this.ctx.delete(`/api/v2/authentication-tokens/${token.id}`, owner.token), 204, 'token revocation');
          return token.attributes.token as string;
        });
      case 'anonymous':
        return null;
      case 'managePolicies':
        return (await this.#teamMember(kind, { 'manage-policies': true })).token;
      case 'manageAgentPools':
        return (await this.#teamMember(kind, { 'manage-agent-pools': true })).token;
      case 'manageTeams':
        return (await this.#teamMember(kind, { 'manage-teams': true })).token;
      case 'manageWorkspaces':
        return (await this.#teamMember(kind, { 'manage-workspaces': true })).token;
      case 'siteAdmin':
        return this.#once('siteAdmin', async () => (await this.ctx.user({ siteAdmin: true })).token);
    }
  }

  // ---- projects and workspaces -------------------------------------------------------------

  /**
   * A new project on which the projectRead team holds `read`, the projectAdmin team `admin` and
   * the projectCustom team a custom grant of `teams: manage`; returns it and the custom grant.
   */
  async freshProjectWithGrants(): Promise<{ project: string; customGrant: string }> {
    const org = await this.org();
    const project = await createProject(this.ctx, org);
    await grant(this.ctx, org, (await this.#teamMember('projectRead')).teamId, project.id, 'read');
    await grant(this.ctx, org, (await this.#teamMember('projectAdmin')).teamId, project.id, 'admin');
    const custom = await grant(this.ctx, org, (await this.#teamMember('projectCustom')).teamId, project.id, 'custom', {
      'project-access': { teams: 'manage' },
    });
    return { project: project.id, customGrant: custom.id };
  }

  freshProject = async (): Promise<string> => (await this.freshProjectWithGrants()).project;

  /** The project rows work on, and a second one with the same access to move workspaces from. */
  projects = (): Promise<{ main: string; source: string }> =>
    this.#once('projects', async () => ({ main: await this.freshProject(), source: await this.freshProject() }));

  project = async (): Promise<string> => (await this.projects()).main;

  /** A new workspace in `projectId` (the main project unless given; null: the default project). */
  async freshWorkspace(projectId?: string | null): Promise<{ id: string; name: string }> {
    const org = await this.org();
    const project = projectId === undefined ? await this.project() : (projectId ?? undefined);
    const w = await createWorkspace(this.ctx, org, project);
    return { id: w.id, name: w.attributes.name as string };
  }

  workspace = () => this.#once('workspace', () => this.freshWorkspace());

  // ---- teams --------------------------------------------------------------------------------

  /** A new team with no members (and so no caller on it), holding `access` (organization flags). */
  async freshTeam(visibility: 'secret' | 'organization' = 'organization', access: Record<string, boolean> = {}): Promise<string> {
    const org = await this.org();
    const body = { data: { type: 'teams', attributes: { name: unique('team'), visibility, 'organization-access': access } } };
    return (await this.#post(`/api/v2/organizations/${org.name}/teams`, body, 200, 'team')).id;
  }

  /** A new visible team with no members and `access` to the main project. */
  async freshTeamWithProjectAccess(access: string): Promise<string> {
    const team = await this.freshTeam();
    await grant(this.ctx, await this.org(), team, await this.project(), access);
    return team;
  }

  team = (visibility: 'secret' | 'organization') => this.#once(`team:${visibility}`, () => this.freshTeam(visibility));

  ownersTeam = () =>
    this.#once('owners', async () => {
      const org = await this.org();
      const url = `/api/v2/organizations/${org.name}/teams?filter[names]=owners`;
      const list = await must(this.ctx.get(url, org.owner.token), 200, 'owners team');
      return list[0].id as string;
    });

  /** A user on no team of the organization, to add to one. */
  async outsideUser(): Promise<string> {
    return (await this.ctx.user()).username;
  }

  /** A new user already on team `teamId`, to remove from it. */
  async userOnTeam(teamId: string): Promise<string> {
    const username = await this.outsideUser();
    await this.#post(`/api/v2/teams/${teamId}/relationships/users`, membersBody(username), 204, 'team membership');
    return username;
  }

  /** A grant on the main project to a team nobody of the matrix is on. */
  async freshTeamAccess(): Promise<string> {
    const org = await this.org();
    return (await grant(this.ctx, org, await this.freshTeam(), await this.project(), 'write')).id;
  }

  teamAccess = () => this.#once('teamAccess', () => this.freshTeamAccess());

  /** A new configuration version of the shared workspace, uploaded when `upload` (for runs). */
  async freshConfigurationVersion(upload = false, workspaceId?: string): Promise<string> {
    const cv = await this.#post(
      `/api/v2/workspaces/${workspaceId ?? (await this.workspace()).id}/configuration-versions`,
      { data: { type: 'configuration-versions' } },
      201,
      'configuration version',
    );
    if (upload) {
      const res = await this.ctx.app.inject({ method: 'PUT', url: new URL(cv.attributes['upload-url']).pathname, payload: Buffer.from([0x1f, 0x8b, 8, 0]) });
      if (res.statusCode !== 200) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
    }
    return cv.id as string;
  }

  /** A new workspace of the main project with an uploaded configuration version, ready for a run. */
  async freshRunnableWorkspace(): Promise<{ workspaceId: string; cvId: string }> {
    const workspaceId = (await this.freshWorkspace()).id;
    return { workspaceId, cvId: await this.freshConfigurationVersion(true, workspaceId) };
  }

  /** A new pending run, on a workspace of its own (it holds that workspace's lock). */
  async freshRun(): Promise<string> {
    return (await this.freshRunWithWorkspace()).id;
  }

  async freshRunWithWorkspace(): Promise<{ id: string; workspaceId: string }> {
    const { workspaceId, cvId } = await this.freshRunnableWorkspace();
    const body = {
      data: {
        type: 'runs',
        relationships: {
          workspace: { data: { type: 'workspaces', id: workspaceId } },
          'configuration-version': { data: { type: 'configuration-versions', id: cvId } },
        },
      },
    };
    return { id: (await this.#post('/api/v2/runs', body, 201, 'run')).id as string, workspaceId };
  }

  /** A run waiting in its workspace's queue (behind a run that holds the workspace). */
  async freshPendingRun(): Promise<string> {
    const { workspaceId, cvId } = await this.freshRunnableWorkspace();
    const body = {
      data: {
        type: 'runs',
        relationships: {
          workspace: { data: { type: 'workspaces', id: workspaceId } },
          'configuration-version': { data: { type: 'configuration-versions', id: cvId } },
        },
      },
    };
    await this.#post('/api/v2/runs', body, 201, 'run');
    return (await this.#post('/api/v2/runs', body, 201, 'run')).id as string;
  }

  /** A run whose plan a runner has started (`planning`), or finished with changes (`planned`): no terraform involved. */
  async freshRunIn(status: 'planning' | 'planned'): Promise<{ id: string; planId: string; applyId: string }> {
    const { id } = await this.freshRunWithWorkspace();
    return { id, ...(await advancePlan(this.ctx, id, status)) };
  }

  /** A comment (by the owner) on the shared planned run. */
  comment = () =>
    this.#once('comment', async () => {
      const { id } = await this.plannedRun();
      return (await this.#post(`/api/v2/runs/${id}/comments`, { data: { type: 'comments', attributes: { body: 'shared' } } }, 201, 'comment')).id as string;
    });

  /** A planned run that rows share (for reading its plan, apply, events). */
  plannedRun = () => this.#once('plannedRun', () => this.freshRunIn('planned'));

  /** A run (and the workspace it locks) that rows share. */
  run = () => this.#once('run', () => this.freshRunWithWorkspace());

  /** A `read` grant on the shared workspace to a team nobody of the matrix is on. */
  async freshTeamWorkspace(): Promise<string> {
    const body = {
      data: {
        type: 'team-workspaces',
        attributes: { access: 'read' },
        relationships: {
          workspace: { data: { type: 'workspaces', id: (await this.workspace()).id } },
          team: { data: { type: 'teams', id: await this.freshTeam() } },
        },
      },
    };
    return (await this.#post('/api/v2/team-workspaces', body, 200, 'team-workspace')).id;
  }

  // ---- tokens -------------------------------------------------------------------------------

  async freshUserToken(): Promise<string> {
    const owner = await this.#owner();
    return (await this.#post(`/api/v2/users/${owner.id}/authentication-tokens`, tokenBody('matrix'), 201, 'user token')).id;
  }

  userToken = () => this.#once('userToken', () => this.freshUserToken());

  orgToken = () =>
    this.#once('orgToken', async () => {
      const org = await this.org();
      const body = { data: { type: 'authentication-token', attributes: {} } };
      const token = await this.#post(`/api/v2/organizations/${org.name}/authentication-token`, body, 201, 'organization token');
      return { id: token.id as string, secret: token.attributes.token as string };
    });

  /** A new visible team with no members, and a token of it. */
  async freshTeamToken(): Promise<{ teamId: string; id: string; secret: string }> {
    const teamId = await this.freshTeam();
    const token = await this.#post(`/api/v2/teams/${teamId}/authentication-token`, { data: { type: '' } }, 201, 'team token');
    return { teamId, id: token.id as string, secret: token.attributes.token as string };
  }

  /** A new audit-trail token of the organization (replacing any before it). */
  async freshAuditTrailToken(): Promise<{ id: string }> {
    const org = await this.org();
    const token = await this.#post(
      `/api/v2/organizations/${org.name}/authentication-token?token=audit-trails`,
      { data: { type: '' } },
      201,
      'audit-trail token',
    );
    return { id: token.id as string };
  }

  auditTrailToken = () => this.#once('auditTrailToken', () => this.freshAuditTrailToken());

  // ---- agent pools, agent tokens, agents ----------------------------------------------------

  async freshPool(): Promise<string> {
    return (await createPool(this.ctx, await this.org())).id;
  }

  pool = () => this.#once('pool', () => this.freshPool());

  async freshAgentToken(): Promise<{ id: string; secret: string }> {
    return createAgentToken(this.ctx, await this.pool(), (await this.#owner()).token);
  }

  agentToken = () => this.#once('agentToken', () => this.freshAgentToken());

  agent = () => this.#once('agent', async () => registerAgent(this.ctx, (await this.agentToken()).secret));

  /** A new agent that has reported `exited`, so that it may be deleted. */
  async freshExitedAgent(): Promise<string> {
    const secret = (await this.agentToken()).secret;
    const id = await registerAgent(this.ctx, secret);
    const res = await agentCall(this.ctx, 'status', secret, { id, status: 'exited' });
    if (res.status !== 200) throw new Error(`world set-up: agent exit answered ${res.status}: ${res.raw}`);
    return id;
  }

  /**
   * A job of the world's pool (a run of a new agent-mode workspace) held by the world's agent as
   * runner `<agent>/0`: its plan, or its apply (the plan reported, auto-apply queued it).
   */
  async freshAgentJob(phase: 'plan' | 'apply' = 'plan'): Promise<{ jobId: string; runner: string }> {
    const runner = `${await this.agent()}/0`;
    const run = await agentRun(this.ctx, await this.org(), await this.pool());
    if (phase === 'plan') {
      await holdJob(this.ctx, run.planJobId, runner);
      return { jobId: run.planJobId, runner };
    }
    await holdJob(this.ctx, run.planJobId, runner);
    const { jobs, runs } = this.ctx.services;
    const plan = (await jobs.find(this.ctx.database.db, run.planJobId))!;
    await runs.pipeline.started(plan);
    await runs.pipeline.planned(plan, { additions: 1, changes: 0, destructions: 0, imports: 0 }, true);
    await holdJob(this.ctx, run.applyJobId, runner);
    return { jobId: run.applyJobId, runner };
  }

  // ---- policy sets and parameters -----------------------------------------------------------

  async freshPolicySet(projectIds: string[] = []): Promise<string> {
    const set = await createPolicySet(this.ctx, await this.org());
    if (projectIds.length) await this.#post(`/api/v2/policy-sets/${set.id}/relationships/projects`, projectRefs(...projectIds), 204, 'attach projects');
    return set.id;
  }

  async linkWorkspaces(policySetId: string, relation: 'workspaces' | 'workspace-exclusions', workspaceIds: string[]): Promise<void> {
    await this.#post(`/api/v2/policy-sets/${policySetId}/relationships/${relation}`, workspaceRefs(...workspaceIds), 204, relation);
  }

  policySet = () => this.#once('policySet', () => this.freshPolicySet());

  async freshParameter(): Promise<string> {
    return (await createParameter(this.ctx, (await this.#owner()).token, await this.policySet(), { key: unique('key'), value: 'v' })).id;
  }

  parameter = () => this.#once('parameter', () => this.freshParameter());

  // ---- policies and policy set versions ------------------------------------------------------

  /** A new policy of the organization, its source uploaded. */
  async freshPolicy(): Promise<string> {
    const policy = await this.#post(
      `/api/v2/organizations/${(await this.org()).name}/policies`,
      { data: { type: 'policies', attributes: { name: unique('pol'), 'enforcement-level': 'advisory' } } },
      201,
      'policy',
    );
    const up = await this.ctx.request('PUT', `/api/v2/policies/${policy.id}/upload`, {
      token: (await this.#owner()).token,
      rawBody: 'main = rule { true }',
      contentType: 'application/octet-stream',
    });
    if (up.status !== 204) throw new Error(`world set-up: policy upload answered ${up.status}: ${up.raw}`);
    return policy.id;
  }

  policy = () => this.#once('policy', () => this.freshPolicy());

  /** A run whose policy check found a soft-mandatory failure (`policy_override`): returns the check's id. */
  async freshSoftFailedCheck(): Promise<{ runId: string; checkId: string }> {
    const { workspaceId, cvId } = await this.freshRunnableWorkspace();
    const policy = await this.#post(
      `/api/v2/organizations/${(await this.org()).name}/policies`,
      { data: { type: 'policies', attributes: { name: unique('pol'), 'enforcement-level': 'soft-mandatory' } } },
      201,
      'policy',
    );
    await this.ctx.request('PUT', `/api/v2/policies/${policy.id}/upload`, {
      token: (await this.#owner()).token,
      rawBody: 'main = rule { false }',
      contentType: 'application/octet-stream',
    });
    await this.linkWorkspaces(await this.freshPolicySetHolding([policy.id]), 'workspaces', [workspaceId]);
    const body = {
      data: {
        type: 'runs',
        relationships: {
          workspace: { data: { type: 'workspaces', id: workspaceId } },
          'configuration-version': { data: { type: 'configuration-versions', id: cvId } },
        },
      },
    };
    const runId = (await this.#post('/api/v2/runs', body, 201, 'run')).id as string;
    const { jobs, runs } = this.ctx.services;
    const db = this.ctx.database.db;
    const plan = (await jobs.ofRuns(db, [runId])).find((j) => j.phase === 'plan')!;
    const at = new Date().toISOString();
    const running = (await jobs.move(db, plan, ['queued'], 'running', at, { runner: 'matrix', heartbeatAt: at }))!;
    await runs.pipeline.started(running);
    await jobs.putBlob(db, running.id, 'plan-json', Buffer.from('{"format_version":"1.2"}'));
    await runs.pipeline.planned(running, { additions: 1, changes: 0, destructions: 0, imports: 0 }, true);
    return { runId, checkId: await this.#checkIdOf(runId) };
  }

  async #checkIdOf(runId: string): Promise<string> {
    const row = await this.ctx.database.db.selectFrom('policy_checks').select('id').where('run_id', '=', runId).executeTakeFirstOrThrow();
    return row.id;
  }

  /** A soft-failed policy check that rows share (for reading it). */
  policyCheck = () => this.#once('policyCheck', () => this.freshSoftFailedCheck());

  /** A new policy set holding the given policies. */
  async freshPolicySetHolding(policyIds: string[]): Promise<string> {
    const set = await this.freshPolicySet();
    await this.#post(`/api/v2/policy-sets/${set}/relationships/policies`, { data: policyIds.map((id) => ({ id, type: 'policies' })) }, 204, 'add policies');
    return set;
  }

  policySetVersion = () =>
    this.#once('policySetVersion', async () => {
      const url = `/api/v2/policy-sets/${await this.freshPolicySet()}/versions`;
      const created = await must(
        this.ctx.request('POST', url, { token: (await this.#owner()).token, contentType: 'application/vnd.api+json' }),
        201,
        'policy set version',
      );
      return created.id as string;
    });
  // ---- variables and variable sets ----------------------------------------------------------

  async freshVariable(): Promise<string> {
    const body = { data: { type: 'vars', attributes: { key: unique('key'), value: 'v', category: 'terraform' } } };
    return (await this.#post(`/api/v2/workspaces/${(await this.workspace()).id}/vars`, body, 201, 'variable')).id;
  }

  variable = () => this.#once('variable', () => this.freshVariable());

  /** A new variable set the organization owns, or (given a project) one that project owns. */
  async freshVariableSet(projectId?: string): Promise<string> {
    const org = await this.org();
    const parent = projectId ? { relationships: { parent: { data: { type: 'projects', id: projectId } } } } : {};
    const body = { data: { type: 'varsets', attributes: { name: unique('varset'), global: false }, ...parent } };
    return (await this.#post(`/api/v2/organizations/${org.name}/varsets`, body, 201, 'variable set')).id;
  }

  variableSet = () => this.#once('variableSet', () => this.freshVariableSet());
  /** A global set, so that every workspace's list of sets holds one. */
  globalVariableSet = () =>
    this.#once('globalVariableSet', async () => {
      const org = await this.org();
      const body = { data: { type: 'varsets', attributes: { name: unique('global'), global: true } } };
      return (await this.#post(`/api/v2/organizations/${org.name}/varsets`, body, 201, 'global variable set')).id as string;
    });
  projectVariableSet = () => this.#once('projectVariableSet', async () => this.freshVariableSet(await this.project()));

  async freshSetVariable(): Promise<string> {
    const body = { data: { type: 'vars', attributes: { key: unique('key'), value: 'v', category: 'env' } } };
    return (await this.#post(`/api/v2/varsets/${await this.variableSet()}/relationships/vars`, body, 201, 'variable set variable')).id;
  }

  setVariable = () => this.#once('setVariable', () => this.freshSetVariable());

  /** A new invitation to the organization (of a new address), by its owner: the membership id. */
  async freshInvitation(): Promise<string> {
    const org = await this.org();
    return (
      await this.#post(`/api/v2/organizations/${org.name}/organization-memberships`, invitationBody(`${unique('invitee')}@example.test`), 201, 'invitation')
    ).id;
  }

  invitation = () => this.#once('invitation', () => this.freshInvitation());

  /** A second organization, of another owner, that invites the matrix's callers. */
  invitingOrg = () => this.#once('invitingOrg', () => this.ctx.organization());

  /**
   * An invitation of the caller behind `token` to the inviting organization (by the caller's
   * account's address; a new address for callers without an account): the membership id.
   */
  async invitationOf(token: string | null): Promise<string> {
    const account = await this.ctx.get('/api/v2/account/details', token);
    const email = account.status === 200 ? (account.body.data.attributes.email as string) : `${unique('nobody')}@example.test`;
    const org = await this.invitingOrg();
    return (await must(this.ctx.post(`/api/v2/organizations/${org.name}/organization-memberships`, org.owner.token, invitationBody(email)), 201, 'invitation'))
      .id;
  }
}

export const invitationBody = (email: string) => ({ data: { type: 'organization-memberships', attributes: { email } } });

export const membershipsBody = (...ids: string[]) => ({ data: ids.map((id) => ({ type: 'organization-memberships', id })) });

export const tokenBody = (description: string) => ({ data: { type: 'authentication-tokens', attributes: { description } } });

export const membersBody = (...usernames: string[]) => ({ data: usernames.map((id) => ({ type: 'users', id })) });
