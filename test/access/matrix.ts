// Who may do what: the exact status every kind of caller gets from every endpoint. This table is
// the permission documentation; test/access-matrix.test.ts runs every cell against a real app
// on SQLite and PostgreSQL, and fails when a route has no row here.
//
// How to read it. Each row is one endpoint (and, where the answer depends on which resource is
// addressed, one kind of target). Each column is a kind of caller:
//
//   own   owner            a member of the organization's `owners` team
//   mprj  manageProjects   a team with the organization permission `manage-projects`
//   prd   projectRead      a team with `read` access to the project(s) the row works on
//   padm  projectAdmin     a team with `admin` access to the project(s) the row works on
//   mem   member           on a team of the organization with no permission and no project access
//   out   outsider         a user of another organization (its owner)
//   otok  orgToken         the organization's API token
//   agnt  agentToken       an agent token of one of the organization's agent pools
//   rvkd  revoked          a user token of the owner, destroyed before use
//   anon  anonymous        no Authorization header at all
//   mpol  managePolicies   a team with `manage-policies`
//   mpoo  manageAgentPools a team with `manage-agent-pools`
//   mtea  manageTeams      a team with `manage-teams` (which implies `manage-membership`)
//   mwsp  manageWorkspaces a team with `manage-workspaces`
//   site  siteAdmin        a site administrator, on no team at all
//   pcus  projectCustom    a team with custom access to the project(s) the row works on: only
//                          `teams: manage` (it manages the project's team access, and holds
//                          little else to give)
//
// The resources a row addresses all belong to the caller's organization, except for `out`.
// The status rules behind the numbers: 401 = no valid token for this surface; 404 = the caller
// may not see the thing (the same answer as when it does not exist, so ids cannot be probed);
// 403 = the caller sees it but may not do that; 2xx = done.

export const CALLERS = [
  'owner',
  'manageProjects',
  'projectRead',
  'projectAdmin',
  'member',
  'outsider',
  'orgToken',
  'agentToken',
  'revoked',
  'anonymous',
  'managePolicies',
  'manageAgentPools',
  'manageTeams',
  'manageWorkspaces',
  'siteAdmin',
  'projectCustom',
] as const;
export type CallerKind = (typeof CALLERS)[number];

export type Status = 200 | 201 | 202 | 204 | 401 | 403 | 404 | 409 | 422;
type S = Status;
/** One status per caller, in the order of CALLERS. */
export type Cells = readonly [S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S];

export interface Row {
  method: string;
  /** The route exactly as registered (`app.routeTable`). */
  path: string;
  /** What the endpoint does, in a few words. */
  what: string;
  /** Which resource is addressed, where one route answers differently for different targets. */
  target?: string;
  expect: Record<CallerKind, Status>;
}

export interface Section {
  title: string;
  rows: Row[];
}

function row(route: string, what: string, cells: Cells, target?: string): Row {
  const [method, path] = route.split(' ') as [string, string];
  const expect = Object.fromEntries(CALLERS.map((c, i) => [c, cells[i]])) as Record<CallerKind, Status>;
  return { method, path, what, ...(target ? { target } : {}), expect };
}

/** The row's name: its route, and its target where the route has several rows. */
export function rowKey(r: Pick<Row, 'method' | 'path' | 'target'>): string {
  return `${r.method} ${r.path}${r.target ? ` [${r.target}]` : ''}`;
}

/**
 * Routes the matrix deliberately leaves out. Keep this short: every entry is a route whose
 * permissions nobody needs documented.
 */
export const OUTSIDE_THE_MATRIX: ReadonlyArray<{ method: string; path: string; why: string }> = [
  {
    method: 'GET',
    path: '/.well-known/terraform.json',
    why: 'service discovery for Terraform, outside /api/v2: a fixed document served to anyone (api.test.ts checks it)',
  },
  { method: 'POST', path: '/app/session', why: 'browser sign-in with a username and password, before any token or session exists (sessions.test.ts)' },
  { method: 'DELETE', path: '/app/session', why: 'browser sign-out: ends the session its cookie names, if any, for anyone (sessions.test.ts)' },
  { method: 'GET', path: '/app/session', why: 'the browser session behind a cookie, not a bearer token: 401 without a live one (sessions.test.ts)' },
  {
    method: 'POST',
    path: '/app/oauth2/token',
    why: "terraform login's OAuth token endpoint: the single-use code and its PKCE verifier are the credential, no token or session (terraform-login.test.ts)",
  },
  { method: 'GET', path: '/healthz', why: 'liveness probe outside /api/v2, for anyone: says only that the process is up (health.test.ts)' },
  {
    method: 'PUT',
    path: '/api/v2/state-versions/:state_version_id/upload/:kind',
    why: 'where Terraform PUTs state without a token: the signed, single-use URL is the permission (state-versions.test.ts)',
  },
  {
    method: 'PUT',
    path: '/_archivist/v1/object/:object',
    why: "a configuration version's upload URL: the signed URL itself is the credential (single use, short-lived), no caller involved (configuration-versions.test.ts)",
  },
  {
    method: 'GET',
    path: '/_archivist/v1/logs/:object',
    why: "a plan's or apply's log URL: the signed URL itself is the credential (short-lived, one job), no caller involved (runs-execution.test.ts)",
  },
  {
    method: 'PUT',
    path: '/_archivist/v1/policy-set-version/:object',
    why: "a policy set version's upload URL: the signed URL itself is the credential (short-lived, one upload), no caller involved (policy-set-versions.test.ts)",
  },
  { method: 'GET', path: '/readyz', why: 'readiness probe outside /api/v2, for anyone: up or not, with a reason free of details (health.test.ts)' },
  // The browsable API reference (@fastify/swagger-ui): a page, its assets and the document it reads.
  ...['/docs', '/docs/static/index.html', '/docs/static/swagger-initializer.js', '/docs/json', '/docs/yaml', '/docs/static/*'].map((path) => ({
    method: 'GET',
    path,
    why: 'the API reference page outside /api/v2, for anyone: the same public document as /api/v2/openapi.json (openapi.test.ts)',
  })),
];

export const MATRIX: Section[] = [
  {
    title: 'Discovery and account',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // go-tfe pings before it has used its token, so no token is needed and none is checked.
      row('GET /api/v2/ping', 'check that the API is up', [204, 204, 204, 204, 204, 204, 204, 204, 204, 204, 204, 204, 204, 204, 204, 204]),
      // The API description is public, like ping: a token is neither needed nor checked.
      row('GET /api/v2/openapi.json', 'read the OpenAPI document', [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200]),
      // An agent token is not accepted anywhere under /api/v2: it only authenticates agents.
      row(
        'GET /api/v2/account/details',
        'who am I (organization tokens: the service user)',
        [200, 200, 200, 200, 200, 200, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // Any authenticated caller may look a user up; the e-mail address is shown only to its owner.
      row('GET /api/v2/users/:user_id', 'show a user (the owner)', [200, 200, 200, 200, 200, 200, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      // Every user changes their own account; the service account behind an organization token
      // sees itself (account details) but is not a person to rename: 403.
      row(
        'PATCH /api/v2/account/update',
        "change the caller's own username or e-mail address",
        [200, 200, 200, 200, 200, 200, 403, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
    ],
  },
  {
    title: "User tokens (the owner's) and the shared /authentication-tokens/:id routes",
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // As in TFE, another user's token list is 200 with no items rather than 404: everyone
      // but the owner gets an empty list, site admins included.
      row(
        'GET /api/v2/users/:user_id/authentication-tokens',
        'list the tokens of a user',
        [200, 200, 200, 200, 200, 200, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // A user manages only their own tokens; to anyone else they do not exist (404).
      row(
        'POST /api/v2/users/:user_id/authentication-tokens',
        'create a token for a user',
        [201, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 404, 404],
      ),
      row(
        'GET /api/v2/authentication-tokens/:token_id',
        'show a token',
        [200, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 404, 404],
        "the owner's user token",
      ),
      row(
        'DELETE /api/v2/authentication-tokens/:token_id',
        'destroy a token',
        [204, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 404, 404],
        "the owner's user token",
      ),
      // Agent tokens go with their pool: whoever manages agent pools sees and destroys them;
      // members who may only read pools are told they do not exist.
      row(
        'GET /api/v2/authentication-tokens/:token_id',
        'show a token',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 200, 404, 404, 200, 404],
        'an agent token',
      ),
      row(
        'DELETE /api/v2/authentication-tokens/:token_id',
        'destroy a token',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 204, 404, 404, 204, 404],
        'an agent token',
      ),
      // The organization token is the owners' business alone (see its own routes below).
      row(
        'GET /api/v2/authentication-tokens/:token_id',
        'show a token',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 404],
        'the organization token',
      ),
      row(
        'GET /api/v2/authentication-tokens/:token_id',
        'show a token',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 404],
        'the audit-trail token',
      ),
    ],
  },
  {
    title: 'Organizations and the organization token',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Everyone gets a list: of the organizations they belong to (site admins: all of them).
      row('GET /api/v2/organizations', 'list organizations', [200, 200, 200, 200, 200, 200, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      // Any user may create an organization; an organization token is not a user.
      row('POST /api/v2/organizations', 'create an organization', [201, 201, 201, 201, 201, 201, 403, 401, 401, 401, 201, 201, 201, 201, 201, 201]),
      row(
        'GET /api/v2/organizations/:organization_name',
        'show an organization',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'GET /api/v2/organizations/:organization_name/entitlement-set',
        'show what the organization may use',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // Settings and deletion are owners' work; no team permission grants them.
      row(
        'PATCH /api/v2/organizations/:organization_name',
        'change the organization',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 403, 200, 403],
      ),
      row(
        'DELETE /api/v2/organizations/:organization_name',
        'delete the organization and everything in it',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 403, 204, 403],
      ),
      // Members who are not owners get 404, not 403: as in TFE, the organization token is
      // hidden from them. The token may replace (and so revoke) itself.
      row(
        'POST /api/v2/organizations/:organization_name/authentication-token',
        'create or replace the organization token',
        [201, 404, 404, 404, 404, 404, 201, 401, 401, 401, 404, 404, 404, 404, 201, 404],
        'the organization token',
      ),
      row(
        'GET /api/v2/organizations/:organization_name/authentication-token',
        'show the organization token',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 404],
        'the organization token',
      ),
      row(
        'DELETE /api/v2/organizations/:organization_name/authentication-token',
        'delete the organization token',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'the organization token',
      ),
      // `?token=audit-trails`: the second slot, with the same rule. The audit-trail token itself
      // authenticates nowhere (Hangar serves no audit trail), so it is no caller of its own.
      row(
        'POST /api/v2/organizations/:organization_name/authentication-token',
        'create or replace the audit-trail token',
        [201, 404, 404, 404, 404, 404, 201, 401, 401, 401, 404, 404, 404, 404, 201, 404],
        'the audit-trail token',
      ),
      row(
        'GET /api/v2/organizations/:organization_name/authentication-token',
        'show the audit-trail token',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 404],
        'the audit-trail token',
      ),
      row(
        'DELETE /api/v2/organizations/:organization_name/authentication-token',
        'delete the audit-trail token',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'the audit-trail token',
      ),
    ],
  },
  {
    title: 'Teams and team membership',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Every member may list teams; the list holds the visible teams and the caller's own.
      row('GET /api/v2/organizations/:organization_name/teams', 'list teams', [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      // TFE answers a team create with 200, not 201.
      row(
        'POST /api/v2/organizations/:organization_name/teams',
        'create a team',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 200, 403, 200, 403],
      ),
      row('GET /api/v2/teams/:team_id', 'show a team', [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200], 'a visible team'),
      // A secret team exists only for its members, owners and `access-secret-teams` (as in TFE):
      // managing teams is not enough to see it.
      row('GET /api/v2/teams/:team_id', 'show a team', [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 404], 'a secret team'),
      row(
        'PATCH /api/v2/teams/:team_id',
        'rename a team or change its settings',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 200, 403, 200, 403],
        'a visible team',
      ),
      row('DELETE /api/v2/teams/:team_id', 'delete a team', [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403], 'a visible team'),
      row(
        'POST /api/v2/teams/:team_id/relationships/users',
        'add users to a team',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403],
        'a visible team',
      ),
      row(
        'DELETE /api/v2/teams/:team_id/relationships/users',
        'remove users from a team',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403],
        'a visible team',
      ),
      // Whoever puts a user on a team gives them what the team holds, so it must hold that too
      // (owners hold everything): membership rights alone would be a way to every permission,
      // by adding oneself to a team that holds it. Stricter than TFE.
      row(
        'POST /api/v2/teams/:team_id/relationships/users',
        'add users to a team',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 403, 204, 403],
        'a visible team holding manage-organization-access',
      ),
      row(
        'POST /api/v2/teams/:team_id/relationships/users',
        'add users to a team',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 403, 204, 403],
        'a visible team holding manage-projects',
      ),
      // The same for the team's project access: `manage-teams` holds no access to the project.
      row(
        'POST /api/v2/teams/:team_id/relationships/users',
        'add users to a team',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 403, 204, 403],
        'a visible team with admin access to the project',
      ),
      // A team token acts as its team: owners and `manage-teams` issue, show and revoke it (as
      // in TFE), and issuing one follows the rule for adding a member (see above).
      row(
        'POST /api/v2/teams/:team_id/authentication-token',
        "create or replace a team's token",
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 201, 403, 201, 403],
        'a visible team',
      ),
      row(
        'POST /api/v2/teams/:team_id/authentication-tokens',
        "create a team token with a description, beside the team's others",
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 201, 403, 201, 403],
        'a visible team',
      ),
      // Those who manage team tokens list them; to anyone else the list does not exist (as in TFE).
      row(
        'GET /api/v2/organizations/:organization_name/team-tokens',
        "list the organization's team tokens",
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 200, 404, 200, 404],
      ),
      row(
        'GET /api/v2/teams/:team_id/authentication-token',
        "show a team's token",
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 200, 403, 200, 403],
        'a visible team',
      ),
      row(
        'DELETE /api/v2/teams/:team_id/authentication-token',
        "delete a team's token",
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403],
        'a visible team',
      ),
      row(
        'GET /api/v2/authentication-tokens/:token_id',
        'show a token',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 200, 404, 200, 404],
        'a team token',
      ),
      row(
        'DELETE /api/v2/authentication-tokens/:token_id',
        'destroy a token',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 204, 404, 204, 404],
        'a team token',
      ),
      // Changing a team's organization access takes `manage-organization-access` as well as
      // `manage-teams`, and holding each flag it turns on.
      row(
        'PATCH /api/v2/teams/:team_id',
        'rename a team or change its settings',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 403, 200, 403],
        'giving a visible team manage-policies',
      ),
      // Being on the owners team is being an owner, so only owners decide who is on it. The
      // owners team is secret: to everyone else, team managers included, it does not exist.
      row(
        'POST /api/v2/teams/:team_id/relationships/users',
        'add users to a team',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'the owners team',
      ),
      row(
        'DELETE /api/v2/teams/:team_id/relationships/users',
        'remove users from a team',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'the owners team',
      ),
    ],
  },
  {
    title: 'Organization memberships (invitations)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // `manage-membership` (which `manage-teams` implies) lists, invites and removes; the list
      // holds every member's address, so other members are refused it.
      row(
        'GET /api/v2/organizations/:organization_name/organization-memberships',
        "list the organization's members and invitations",
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 200, 403, 200, 403],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/organization-memberships',
        'invite someone by e-mail address',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 201, 403, 201, 403],
      ),
      // Everyone's own memberships (none for tokens that are no user).
      row(
        'GET /api/v2/organization-memberships',
        "list the caller's own memberships and invitations",
        [200, 200, 200, 200, 200, 200, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // A membership exists for its own user and those who manage memberships.
      row(
        'GET /api/v2/organization-memberships/:membership_id',
        'show a membership',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 404, 200, 404, 200, 404],
        'an invitation',
      ),
      row(
        'DELETE /api/v2/organization-memberships/:membership_id',
        'remove a member or withdraw an invitation',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 204, 404, 204, 404],
        'an invitation',
      ),
      // Only the invited user accepts (a token that is no user has no invitation to accept: it
      // is not in the inviting organization, which it does not see).
      row(
        'POST /api/v2/organization-memberships/:membership_id/actions/accept',
        'accept an invitation',
        [200, 200, 200, 200, 200, 200, 404, 401, 401, 401, 200, 200, 200, 200, 200, 200],
        'an invitation of the caller',
      ),
      // Team membership by organization membership follows the rules for adding users.
      row(
        'POST /api/v2/teams/:team_id/relationships/organization-memberships',
        'add members to a team by membership',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403],
        'a visible team',
      ),
      row(
        'POST /api/v2/teams/:team_id/relationships/organization-memberships',
        'add members to a team by membership',
        [204, 404, 404, 404, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'the owners team',
      ),
      row(
        'DELETE /api/v2/teams/:team_id/relationships/organization-memberships',
        'remove members from a team by membership',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403],
        'a visible team',
      ),
    ],
  },
  {
    title: 'Projects',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Every member gets 200, with only the projects they may read in it.
      row(
        'GET /api/v2/organizations/:organization_name/projects',
        'list projects',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // Access to one project, even admin, does not let a team create others.
      row(
        'POST /api/v2/organizations/:organization_name/projects',
        'create a project',
        [201, 201, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 403, 403, 201, 403],
      ),
      // A member without access to the project gets 404, not 403: for them it does not exist.
      // `manage-workspaces` reads the default project only (where it may create workspaces).
      row('GET /api/v2/projects/:project_id', 'show a project', [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 200]),
      // `read` sees the project, so it is told 403; whoever cannot see it, 404.
      row('PATCH /api/v2/projects/:project_id', 'change a project', [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403]),
      row('DELETE /api/v2/projects/:project_id', 'delete an empty project', [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 403]),
      // The destination decides first: not allowed to move into it is 404 (the seed's rule),
      // even for `read`, who can see it. Here the workspace comes from a second project where
      // the project teams hold the same access.
      row(
        'POST /api/v2/projects/:project_id/relationships/workspaces',
        'move workspaces into a project',
        [204, 204, 404, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'a workspace the caller may move',
      ),
      // Allowed into the destination but not out of the workspace's project (the default
      // project, where `admin` of the destination has no access): 403 naming the workspace.
      row(
        'POST /api/v2/projects/:project_id/relationships/workspaces',
        'move workspaces into a project',
        [204, 204, 404, 403, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 404],
        'a workspace of the default project',
      ),
    ],
  },
  {
    title: 'Workspaces (in the project; by id and by organization and name)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      row(
        'GET /api/v2/organizations/:organization_name/workspaces',
        'list workspaces',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // The project is named in the body. Whoever cannot see it gets 422 "Project not found"
      // at /data/relationships/project/data/id, exactly as for a project that does not exist;
      // `read` sees it and gets 403. `manage-workspaces` creates only in the default project.
      row(
        'POST /api/v2/organizations/:organization_name/workspaces',
        'create a workspace',
        [201, 201, 403, 201, 422, 404, 201, 401, 401, 401, 422, 422, 422, 422, 201, 403],
        'in the project',
      ),
      // Without a project the default project is meant: here it is `manage-workspaces` that may;
      // everyone else is told (403) that they may not create in the default project, since the
      // project they never named cannot be "not found".
      row(
        'POST /api/v2/organizations/:organization_name/workspaces',
        'create a workspace',
        [201, 201, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 403, 201, 201, 403],
        'in the default project',
      ),
      // `manage-workspaces` reads and manages every workspace, even in projects it cannot see.
      row('GET /api/v2/workspaces/:workspace_id', 'show a workspace', [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      // Changing settings takes workspace admin: project `maintain` or `admin`, not `read`.
      row('PATCH /api/v2/workspaces/:workspace_id', 'change a workspace', [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403]),
      row('DELETE /api/v2/workspaces/:workspace_id', 'delete a workspace', [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403]),
      row(
        'GET /api/v2/organizations/:organization_name/workspaces/:workspace_name',
        'show a workspace',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'PATCH /api/v2/organizations/:organization_name/workspaces/:workspace_name',
        'change a workspace',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'DELETE /api/v2/organizations/:organization_name/workspaces/:workspace_name',
        'delete a workspace',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      // Remote state consumers: whoever sees the workspace sees them; choosing them is a setting
      // of the workspace (workspace admin), and the consumers named must be visible too.
      row(
        'GET /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers',
        'list remote state consumers',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'POST /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers',
        'add remote state consumers',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      row(
        'PATCH /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers',
        'replace remote state consumers',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      row(
        'DELETE /api/v2/workspaces/:workspace_id/relationships/remote-state-consumers',
        'remove remote state consumers',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
    ],
  },
  {
    title: 'Tags (of the workspace in the project, and of the project)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Read with the workspace; written by whoever may change its settings (`read`: 403).
      row(
        'GET /api/v2/workspaces/:workspace_id/tag-bindings',
        "list a workspace's tag bindings",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'PATCH /api/v2/workspaces/:workspace_id/tag-bindings',
        "add to a workspace's tag bindings",
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'GET /api/v2/workspaces/:workspace_id/effective-tag-bindings',
        "list a workspace's tag bindings in effect",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/workspaces/:workspace_id/relationships/tags',
        "list a workspace's flat tags",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'POST /api/v2/workspaces/:workspace_id/relationships/tags',
        'add flat tags to a workspace',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      row(
        'DELETE /api/v2/workspaces/:workspace_id/relationships/tags',
        'remove flat tags from a workspace',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      // Read with the project; written by whoever may update it.
      row(
        'GET /api/v2/projects/:project_id/tag-bindings',
        "list a project's tag bindings",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 200],
      ),
      row(
        'PATCH /api/v2/projects/:project_id/tag-bindings',
        "add to a project's tag bindings",
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403],
      ),
      row(
        'GET /api/v2/projects/:project_id/effective-tag-bindings',
        "list a project's tag bindings in effect",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 200],
      ),
      // The organization's tags: every member lists them. Deleting one takes it off every
      // workspace carrying it (here a workspace of the project), so it takes the right to manage
      // the tags of each; members who see the organization but not that right get 403.
      row(
        'GET /api/v2/organizations/:organization_name/tags',
        "list an organization's tags",
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'DELETE /api/v2/organizations/:organization_name/tags',
        'delete tags from every workspace',
        [204, 204, 403, 204, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403],
      ),
      // The workspaces are named in the body: one the caller cannot see is 422 "Workspace … not
      // found" at its id, as for one that does not exist; `read` sees it and gets 403.
      row(
        'POST /api/v2/tags/:tag_id/relationships/workspaces',
        'add a tag to workspaces',
        [204, 204, 403, 204, 422, 404, 204, 401, 401, 401, 422, 422, 422, 204, 204, 403],
      ),
    ],
  },
  {
    title: 'Workspace locks (a workspace of the project)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Locking takes TFE's `locking` permission: project `write` and above, `manage-workspaces`.
      row(
        'POST /api/v2/workspaces/:workspace_id/actions/lock',
        'lock a workspace',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      // Only the holder unlocks (here the owner); everyone else who may lock gets 409 "is locked by User".
      row(
        'POST /api/v2/workspaces/:workspace_id/actions/unlock',
        "unlock a workspace (the owner's lock)",
        [200, 409, 403, 409, 404, 404, 409, 401, 401, 401, 404, 404, 404, 409, 409, 403],
      ),
      // Releasing anyone's lock takes workspace admin (`maintain`, `admin`, `manage-workspaces`).
      row(
        'POST /api/v2/workspaces/:workspace_id/actions/force-unlock',
        "force-unlock a workspace (the owner's lock)",
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
    ],
  },
  {
    title: 'Safe delete (a fresh, unlocked workspace of the project without state)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // As DELETE: it takes the right to delete workspaces; then 409 while locked or managing resources.
      row(
        'POST /api/v2/workspaces/:workspace_id/actions/safe-delete',
        'delete a workspace unless locked or managing resources',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/workspaces/:workspace_name/actions/safe-delete',
        'delete a workspace unless locked or managing resources',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
    ],
  },
  {
    title: 'State versions (a workspace of the project)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Writing state takes `state-versions: write` (project `write` and above) and holding the
      // workspace's lock (each cell locks it first where it may).
      row(
        'POST /api/v2/workspaces/:workspace_id/state-versions',
        'create a state version',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403],
      ),
      // Reading takes `state-versions: read` (project `read` has it; a custom grant without it 403).
      row(
        'GET /api/v2/workspaces/:workspace_id/current-state-version',
        'show the current state version',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row('GET /api/v2/state-versions', "list a workspace's state versions", [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403]),
      row(
        'GET /api/v2/state-versions/:state_version_id',
        'show a state version',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'GET /api/v2/state-versions/:state_version_id/download',
        'download the state',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'GET /api/v2/state-versions/:state_version_id/json-download',
        'download the JSON state',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      // Outputs take `state-versions: read-outputs` or more.
      row(
        'GET /api/v2/state-versions/:state_version_id/outputs',
        "list a state version's outputs",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'GET /api/v2/workspaces/:workspace_id/current-state-version-outputs',
        "list the current state's outputs",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      // The resources list is read from the state: `state-versions: read`, as the versions are.
      row(
        'GET /api/v2/workspaces/:workspace_id/resources',
        "list the workspace's resources",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'GET /api/v2/state-version-outputs/:state_version_output_id',
        'show an output, sensitive value included',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
    ],
  },
  {
    title: "Project team access (another team's access to the project)",
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Whoever reads the project may list its team access (200); `read` sees only its own
      // team's entry in the list. `manage-teams` cannot see the project, so 404.
      row(
        'GET /api/v2/team-projects',
        'list the teams with access to a project',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 200],
      ),
      // Managing team access takes project admin, `teams: manage` or `manage-projects`; `read`
      // sees the project: 403. Nobody but an owner gives more than it holds on the project, so
      // `teams: manage` alone may not give `write` (nor anything else beyond its own values).
      row(
        'POST /api/v2/team-projects',
        'give a team access to a project',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 404, 201, 403],
        'write access for another team',
      ),
      row(
        'POST /api/v2/team-projects',
        'give a team access to a project',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 404, 201, 403],
        'admin access for another team',
      ),
      // `read` does not see other teams' access at all, so 404 even though it sees the project.
      row(
        'GET /api/v2/team-projects/:team_project_id',
        "show a team's access",
        [200, 200, 404, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 200],
      ),
      row(
        'PATCH /api/v2/team-projects/:team_project_id',
        "change a team's access",
        [200, 200, 404, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403],
        "another team's write access, raised to maintain",
      ),
      // The projectCustom team's own grant (on a project of its own, so that the raise changes
      // nothing for later cells): raising it to admin is the escalation refused to pcus itself.
      row(
        'PATCH /api/v2/team-projects/:team_project_id',
        "change a team's access",
        [200, 200, 404, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403],
        "the projectCustom team's grant, raised to admin",
      ),
      // Taking access away gives nothing: `teams: manage` may.
      row(
        'DELETE /api/v2/team-projects/:team_project_id',
        "remove a team's access",
        [204, 204, 404, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 404, 204, 204],
      ),
    ],
  },
  {
    title: 'Configuration versions (of the shared workspace)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Uploading configuration takes `plan` runs permission at least (project write and above,
      // `manage-workspaces`); `read` and the custom grant's default runs: read see it: 403.
      row(
        'POST /api/v2/workspaces/:workspace_id/configuration-versions',
        'create a configuration version (and its upload URL)',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403],
      ),
      row(
        'GET /api/v2/workspaces/:workspace_id/configuration-versions',
        "list a workspace's configuration versions",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/configuration-versions/:configuration_version_id',
        'show a configuration version',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/configuration-versions/:configuration_version_id/download',
        "download a configuration version's tarball",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      // Archiving takes what uploading does.
      row(
        'POST /api/v2/configuration-versions/:configuration_version_id/actions/archive',
        'archive a configuration version that is not current',
        [202, 202, 403, 202, 404, 404, 202, 401, 401, 401, 404, 404, 404, 202, 202, 403],
      ),
    ],
  },
  {
    title: 'Runs (a queue per workspace; plans and applies executed by a runner)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Queueing, discarding and cancelling take `plan` runs permission at least, as uploading
      // configuration does; whoever reads the workspace reads its runs.
      row('POST /api/v2/runs', 'queue a run (it takes the workspace lock)', [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403]),
      row('GET /api/v2/runs/:run_id', 'show a run', [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      row(
        'GET /api/v2/workspaces/:workspace_id/runs',
        "list a workspace's runs",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/organizations/:organization_name/runs',
        "list an organization's runs (of the workspaces the caller sees)",
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'GET /api/v2/organizations/:organization_name/runs/queue',
        "an organization's run queue (of the workspaces the caller sees)",
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      // Confirming an apply takes `apply` runs permission.
      row(
        'POST /api/v2/runs/:run_id/actions/apply',
        'confirm a planned run (its apply is queued)',
        [202, 202, 403, 202, 404, 404, 202, 401, 401, 401, 404, 404, 404, 202, 202, 403],
      ),
      row(
        'POST /api/v2/runs/:run_id/actions/force-cancel',
        'end a planning or applying run at once',
        [202, 202, 403, 202, 404, 404, 202, 401, 401, 401, 404, 404, 404, 202, 202, 403],
      ),
      row(
        'POST /api/v2/runs/:run_id/actions/force-execute',
        'start a pending run now, ending the one holding its workspace',
        [202, 202, 403, 202, 404, 404, 202, 401, 401, 401, 404, 404, 404, 202, 202, 403],
      ),
      // Commenting takes `plan` runs permission, as queueing does; readers of the run read them.
      row('POST /api/v2/runs/:run_id/comments', 'comment on a run', [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403]),
      row('GET /api/v2/runs/:run_id/comments', "list a run's comments", [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      row('GET /api/v2/comments/:comment_id', 'show a comment', [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      // Policy checks are read by whoever reads the run; overriding one takes `manage-policies`
      // (Hangar's stand-in for TFE's `manage-policy-overrides`) besides seeing the run.
      row(
        'GET /api/v2/runs/:run_id/policy-checks',
        "list a run's policy checks",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/policy-checks/:policy_check_id',
        'show a policy check',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/policy-checks/:policy_check_id/output',
        "read a policy check's log",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'POST /api/v2/policy-checks/:policy_check_id/actions/override',
        'override a soft-mandatory failure',
        [200, 403, 403, 403, 404, 404, 200, 401, 401, 401, 404, 404, 404, 403, 200, 403],
      ),
      // The site-admin API: site admins only; it does not exist for anyone else.
      row('GET /api/v2/admin/runs', 'list every run of the installation', [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 200, 404]),
      row(
        'POST /api/v2/admin/runs/:run_id/actions/force-cancel',
        'end any unfinished run',
        [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 202, 404],
      ),
      row(
        'GET /api/v2/admin/workspaces',
        'list every workspace of the installation',
        [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 200, 404],
      ),
      row(
        'GET /api/v2/admin/organizations',
        'list every organization of the installation',
        [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 200, 404],
      ),
      row(
        'GET /api/v2/admin/organizations/:organization_name',
        'show any organization',
        [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 200, 404],
      ),
      row(
        'DELETE /api/v2/admin/organizations/:organization_name',
        'delete any organization',
        [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 204, 404],
      ),
      row('GET /api/v2/admin/workspaces/:workspace_id', 'show any workspace', [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 200, 404]),
      row(
        'DELETE /api/v2/admin/workspaces/:workspace_id',
        'delete any workspace',
        [404, 404, 404, 404, 404, 404, 404, 401, 401, 401, 404, 404, 404, 404, 204, 404],
      ),
      row('GET /api/v2/runs/:run_id/run-events', "list a run's events", [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      row('GET /api/v2/run-events/:run_event_id', 'show a run event', [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      row(
        'GET /api/v2/plans/:plan_id',
        'show a plan (its log URL is signed)',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'GET /api/v2/applies/:apply_id',
        'show an apply (its log URL is signed)',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      // The JSON plan holds state values: it takes reading the state.
      row('GET /api/v2/plans/:plan_id/json-output', "a plan's JSON", [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403]),
      row(
        'GET /api/v2/plans/:plan_id/json-output-redacted',
        "a plan's redacted JSON",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'POST /api/v2/runs/:run_id/actions/discard',
        'discard a run (releasing its lock)',
        [202, 202, 403, 202, 404, 404, 202, 401, 401, 401, 404, 404, 404, 202, 202, 403],
      ),
      row(
        'POST /api/v2/runs/:run_id/actions/cancel',
        'cancel a run (releasing its lock)',
        [202, 202, 403, 202, 404, 404, 202, 401, 401, 401, 404, 404, 404, 202, 202, 403],
      ),
    ],
  },
  {
    title: "Workspace team access (another team's access to the shared workspace)",
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Whoever reads the workspace may list its team access (only its own teams' entries unless
      // it administers the workspace or manages teams).
      row(
        'GET /api/v2/team-workspaces',
        'list the teams with access to a workspace',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      // Workspace admins manage its team access: `manage-workspaces`, `manage-projects`, a
      // project's maintain or admin, a workspace's admin. Readers of the workspace: 403.
      row(
        'POST /api/v2/team-workspaces',
        'give a team access to a workspace',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
        'read access for another team',
      ),
      // Other teams' grants are seen by the workspace's admins (and team managers who read it).
      row(
        'GET /api/v2/team-workspaces/:team_workspace_id',
        "show a team's access to a workspace",
        [200, 200, 404, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 404],
      ),
      row(
        'PATCH /api/v2/team-workspaces/:team_workspace_id',
        "change a team's access to a workspace",
        [200, 200, 404, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 404],
        "another team's read access, raised to write",
      ),
      row(
        'DELETE /api/v2/team-workspaces/:team_workspace_id',
        "remove a team's access to a workspace",
        [204, 204, 404, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 404],
      ),
    ],
  },
  {
    title: 'Run triggers (into a workspace of the project, from another workspace of the project)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Whoever reads the workspace reads its triggers; managing them is a setting of the
      // workspace (workspace admin), as TFE's `can-manage-run-triggers`.
      row(
        'GET /api/v2/workspaces/:workspace_id/run-triggers',
        "list a workspace's run triggers",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'POST /api/v2/workspaces/:workspace_id/run-triggers',
        'create a run trigger',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403],
      ),
      row('GET /api/v2/run-triggers/:run_trigger_id', 'show a run trigger', [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200]),
      row(
        'DELETE /api/v2/run-triggers/:run_trigger_id',
        'delete a run trigger',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
    ],
  },
  {
    title: "Notification configurations (a workspace's, of a workspace of the project; a visible team's)",
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Whoever reads the workspace reads its notification configurations (never their tokens);
      // managing and verifying them takes the workspace's admin right (`manage-notifications`).
      row(
        'GET /api/v2/workspaces/:workspace_id/notification-configurations',
        "list a workspace's notification configurations",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
      ),
      row(
        'POST /api/v2/workspaces/:workspace_id/notification-configurations',
        'create a notification configuration of a workspace',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403],
      ),
      row(
        'GET /api/v2/notification-configurations/:notification_configuration_id',
        'show a notification configuration',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 200],
        "a workspace's",
      ),
      row(
        'PATCH /api/v2/notification-configurations/:notification_configuration_id',
        'update a notification configuration',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
        "a workspace's",
      ),
      row(
        'DELETE /api/v2/notification-configurations/:notification_configuration_id',
        'delete a notification configuration',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
        "a workspace's",
      ),
      row(
        'POST /api/v2/notification-configurations/:notification_configuration_id/actions/verify',
        'send a verification notification',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
        "a workspace's",
      ),
      // A team's: read by whoever sees the team, managed by whoever manages teams (as the team itself).
      row(
        'GET /api/v2/teams/:team_id/notification-configurations',
        "list a team's notification configurations",
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'POST /api/v2/teams/:team_id/notification-configurations',
        'create a notification configuration of a team',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 201, 403, 201, 403],
      ),
      row(
        'GET /api/v2/notification-configurations/:notification_configuration_id',
        'show a notification configuration',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
        "a team's",
      ),
      row(
        'PATCH /api/v2/notification-configurations/:notification_configuration_id',
        'update a notification configuration',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 200, 403, 200, 403],
        "a team's",
      ),
      row(
        'DELETE /api/v2/notification-configurations/:notification_configuration_id',
        'delete a notification configuration',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 204, 403, 204, 403],
        "a team's",
      ),
      row(
        'POST /api/v2/notification-configurations/:notification_configuration_id/actions/verify',
        'send a verification notification',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 200, 403, 200, 403],
        "a team's",
      ),
    ],
  },
  {
    title: "Plan exports (Sentinel mocks of a planned run's plan, in a workspace of the project)",
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // TFE's workspace `sentinel-mocks` permission: write and admin access hold it, read and
      // plan do not (they see the run: 403); who cannot see the run gets 404.
      row('POST /api/v2/plan-exports', "export a plan's Sentinel mocks", [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403]),
      row('GET /api/v2/plan-exports/:plan_export_id', 'show a plan export', [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403]),
      row(
        'GET /api/v2/plan-exports/:plan_export_id/download',
        "download a plan export's mocks",
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'DELETE /api/v2/plan-exports/:plan_export_id',
        'delete a plan export',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
    ],
  },
  {
    title: "SSH keys (the organization's; assigned to a workspace of the project)",
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // TFE: managing keys is "manage VCS settings" (none of these teams holds it: owners and
      // site admins only here); reading them also organization-wide workspace admin. TFE
      // refuses organization tokens on these endpoints (403). Members who may not: 403.
      row(
        'GET /api/v2/organizations/:organization_name/ssh-keys',
        "list the organization's SSH keys",
        [200, 200, 403, 403, 403, 404, 403, 401, 401, 401, 403, 403, 403, 200, 200, 403],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/ssh-keys',
        'create an SSH key',
        [201, 403, 403, 403, 403, 404, 403, 401, 401, 401, 403, 403, 403, 403, 201, 403],
      ),
      row('GET /api/v2/ssh-keys/:ssh_key_id', 'show an SSH key', [200, 200, 403, 403, 403, 404, 403, 401, 401, 401, 403, 403, 403, 200, 200, 403]),
      row('PATCH /api/v2/ssh-keys/:ssh_key_id', 'rename an SSH key', [200, 403, 403, 403, 403, 404, 403, 401, 401, 401, 403, 403, 403, 403, 200, 403]),
      row('DELETE /api/v2/ssh-keys/:ssh_key_id', 'delete an SSH key', [204, 403, 403, 403, 403, 404, 403, 401, 401, 401, 403, 403, 403, 403, 204, 403]),
      // A setting of the workspace (workspace admin), as TFE.
      row(
        'PATCH /api/v2/workspaces/:workspace_id/relationships/ssh-key',
        'assign an SSH key to a workspace',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
    ],
  },
  {
    title: 'Policy sets and their parameters',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Every member reads policy sets and parameters (sensitive values never); writing takes
      // `manage-policies`, so other members get 403, outsiders 404.
      row(
        'GET /api/v2/organizations/:organization_name/policy-sets',
        'list policy sets',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/policy-sets',
        'create a policy set',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 201, 403, 403, 403, 201, 403],
      ),
      row('GET /api/v2/policy-sets/:policy_set_id', 'show a policy set', [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      row('PATCH /api/v2/policy-sets/:policy_set_id', 'change a policy set', [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 200, 403, 403, 403, 200, 403]),
      row(
        'DELETE /api/v2/policy-sets/:policy_set_id',
        'delete a policy set and its parameters',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      // Attaching a project needs no access to the project itself, only `manage-policies`.
      row(
        'POST /api/v2/policy-sets/:policy_set_id/relationships/projects',
        'attach projects to a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'DELETE /api/v2/policy-sets/:policy_set_id/relationships/projects',
        'detach projects from a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      // Likewise for workspaces: `manage-policies` is enough, whatever access the caller has to them.
      row(
        'POST /api/v2/policy-sets/:policy_set_id/relationships/workspaces',
        'attach workspaces to a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'DELETE /api/v2/policy-sets/:policy_set_id/relationships/workspaces',
        'detach workspaces from a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'POST /api/v2/policy-sets/:policy_set_id/relationships/workspace-exclusions',
        'exclude workspaces from a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'DELETE /api/v2/policy-sets/:policy_set_id/relationships/workspace-exclusions',
        'stop excluding workspaces',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'GET /api/v2/policy-sets/:policy_set_id/parameters',
        'list the parameters of a policy set',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'POST /api/v2/policy-sets/:policy_set_id/parameters',
        'create a parameter',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 201, 403, 403, 403, 201, 403],
      ),
      row(
        'GET /api/v2/policy-sets/:policy_set_id/parameters/:parameter_id',
        'show a parameter',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'PATCH /api/v2/policy-sets/:policy_set_id/parameters/:parameter_id',
        'change a parameter',
        [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 200, 403, 403, 403, 200, 403],
      ),
      row(
        'DELETE /api/v2/policy-sets/:policy_set_id/parameters/:parameter_id',
        'delete a parameter',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
    ],
  },
  {
    title: 'Policies, the sets holding them, and policy set versions',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // As for policy sets: every member reads policies (their sources too) and versions;
      // writing, uploading and creating versions take `manage-policies`.
      row(
        'GET /api/v2/organizations/:organization_name/policies',
        'list policies',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/policies',
        'create a policy',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 201, 403, 403, 403, 201, 403],
      ),
      row('GET /api/v2/policies/:policy_id', 'show a policy', [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      row('PATCH /api/v2/policies/:policy_id', 'change a policy', [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 200, 403, 403, 403, 200, 403]),
      row('DELETE /api/v2/policies/:policy_id', 'delete a policy', [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403]),
      row(
        'PUT /api/v2/policies/:policy_id/upload',
        "upload a policy's source",
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'GET /api/v2/policies/:policy_id/download',
        "download a policy's source",
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'POST /api/v2/policy-sets/:policy_set_id/relationships/policies',
        'add policies to a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'DELETE /api/v2/policy-sets/:policy_set_id/relationships/policies',
        'remove policies from a policy set',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 204, 403, 403, 403, 204, 403],
      ),
      row(
        'POST /api/v2/policy-sets/:policy_set_id/versions',
        'create a policy set version (and its upload link)',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 201, 403, 403, 403, 201, 403],
      ),
      row(
        'GET /api/v2/policy-set-versions/:policy_set_version_id',
        'show a policy set version',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
    ],
  },
  {
    title: 'Workspace variables (the shared workspace of the project)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // TFE's workspace `variables` permission: project `read` reads, `write` and above write;
      // `read-workspaces` reads every workspace's, `manage-workspaces` writes them. The custom
      // grant (only `teams: manage`) sees the workspace but holds `variables: none`: 403.
      row(
        'GET /api/v2/workspaces/:workspace_id/vars',
        "list a workspace's variables",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'POST /api/v2/workspaces/:workspace_id/vars',
        'create a workspace variable',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403],
      ),
      row(
        'GET /api/v2/workspaces/:workspace_id/vars/:variable_id',
        'show a workspace variable',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'PATCH /api/v2/workspaces/:workspace_id/vars/:variable_id',
        'update a workspace variable',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'DELETE /api/v2/workspaces/:workspace_id/vars/:variable_id',
        'delete a workspace variable',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      // TFE's older forms of the same, with the same permissions.
      row(
        'GET /api/v2/vars',
        "list a workspace's variables (by organization and workspace name)",
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'POST /api/v2/vars',
        'create a workspace variable (the workspace in the body)',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 201, 201, 403],
      ),
      row(
        'PATCH /api/v2/vars/:variable_id',
        'update a workspace variable (by its id alone)',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      row(
        'DELETE /api/v2/vars/:variable_id',
        'delete a workspace variable (by its id alone)',
        [204, 204, 403, 204, 404, 404, 204, 401, 401, 401, 404, 404, 404, 204, 204, 403],
      ),
      row(
        'GET /api/v2/workspaces/:workspace_id/all-vars',
        'list the variables a run gets (sets included)',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
      // The sets that apply to a workspace: read with its variables.
      row(
        'GET /api/v2/workspaces/:workspace_id/varsets',
        'list the variable sets that apply to a workspace',
        [200, 200, 200, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 200, 200, 403],
      ),
    ],
  },
  {
    title: 'Variable sets (one the organization owns, unless the row says the project owns it)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Hangar has no `manage-var-sets` flag: `read-workspaces` reads the organization's sets,
      // `manage-workspaces` (and `manage-projects`) manage them; other members 403.
      row(
        'GET /api/v2/organizations/:organization_name/varsets',
        "list the organization's variable sets",
        [200, 200, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 200, 200, 403],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/varsets',
        'create a variable set the organization owns',
        [201, 201, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 403, 201, 201, 403],
      ),
      // A project's own set takes `variable-sets: write` on it (project `admin`); a caller who
      // cannot see the project gets 404, as for everything in it.
      row(
        'POST /api/v2/organizations/:organization_name/varsets',
        'create a variable set the project owns',
        [201, 201, 403, 201, 404, 404, 201, 401, 401, 401, 404, 404, 404, 404, 201, 403],
        'owned by the project',
      ),
      row(
        'GET /api/v2/projects/:project_id/varsets',
        'list the variable sets a project owns or has applied',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403],
      ),
      row('GET /api/v2/varsets/:varset_id', 'show a variable set', [200, 200, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 200, 200, 403]),
      row(
        'GET /api/v2/varsets/:varset_id',
        'show a variable set',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403],
        'owned by the project',
      ),
      row('PATCH /api/v2/varsets/:varset_id', 'update a variable set', [200, 200, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 200, 200, 403]),
      row(
        'PATCH /api/v2/varsets/:varset_id',
        'update a variable set',
        [200, 200, 403, 200, 404, 404, 200, 401, 401, 401, 404, 404, 404, 404, 200, 403],
        'owned by the project',
      ),
      row('DELETE /api/v2/varsets/:varset_id', 'delete a variable set', [204, 204, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403]),
      row(
        'POST /api/v2/varsets/:varset_id/relationships/workspaces',
        'apply a variable set to workspaces',
        [204, 204, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403],
      ),
      row(
        'DELETE /api/v2/varsets/:varset_id/relationships/workspaces',
        'remove a variable set from workspaces',
        [204, 204, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403],
      ),
      row(
        'POST /api/v2/varsets/:varset_id/relationships/projects',
        'apply a variable set to projects',
        [204, 204, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403],
      ),
      row(
        'DELETE /api/v2/varsets/:varset_id/relationships/projects',
        'remove a variable set from projects',
        [204, 204, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403],
      ),
      // A set's variables are read and managed as the set is.
      row(
        'GET /api/v2/varsets/:varset_id/relationships/vars',
        "list a variable set's variables",
        [200, 200, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 200, 200, 403],
      ),
      row(
        'POST /api/v2/varsets/:varset_id/relationships/vars',
        'add a variable to a variable set',
        [201, 201, 403, 403, 403, 404, 201, 401, 401, 401, 403, 403, 403, 201, 201, 403],
      ),
      row(
        'GET /api/v2/varsets/:varset_id/relationships/vars/:set_variable_id',
        "show a variable set's variable",
        [200, 200, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 200, 200, 403],
      ),
      row(
        'PATCH /api/v2/varsets/:varset_id/relationships/vars/:set_variable_id',
        "update a variable set's variable",
        [200, 200, 403, 403, 403, 404, 200, 401, 401, 401, 403, 403, 403, 200, 200, 403],
      ),
      row(
        'DELETE /api/v2/varsets/:varset_id/relationships/vars/:set_variable_id',
        "delete a variable set's variable",
        [204, 204, 403, 403, 403, 404, 204, 401, 401, 401, 403, 403, 403, 204, 204, 403],
      ),
    ],
  },
  {
    title: 'Agent pools, agent tokens and agents',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // Every member sees pools and their agents; changing them takes `manage-agent-pools`.
      row(
        'GET /api/v2/organizations/:organization_name/agent-pools',
        'list agent pools',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row(
        'POST /api/v2/organizations/:organization_name/agent-pools',
        'create an agent pool',
        [201, 403, 403, 403, 403, 404, 201, 401, 401, 401, 403, 201, 403, 403, 201, 403],
      ),
      row('GET /api/v2/agent-pools/:agent_pool_id', 'show an agent pool', [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      row('PATCH /api/v2/agent-pools/:agent_pool_id', 'change an agent pool', [200, 403, 403, 403, 403, 404, 200, 401, 401, 401, 403, 200, 403, 403, 200, 403]),
      row(
        'DELETE /api/v2/agent-pools/:agent_pool_id',
        'delete a pool (its tokens stop working)',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 204, 403, 403, 204, 403],
      ),
      // A pool's tokens are hidden from members who may not manage pools: 404, not 403, as
      // the seed says ("pool not found or caller unauthorized").
      row(
        'GET /api/v2/agent-pools/:agent_pool_id/authentication-tokens',
        'list the tokens of a pool',
        [200, 404, 404, 404, 404, 404, 200, 401, 401, 401, 404, 200, 404, 404, 200, 404],
      ),
      row(
        'POST /api/v2/agent-pools/:agent_pool_id/authentication-tokens',
        'create an agent token',
        [201, 404, 404, 404, 404, 404, 201, 401, 401, 401, 404, 201, 404, 404, 201, 404],
      ),
      row(
        'GET /api/v2/agent-pools/:agent_pool_id/agents',
        'list the agents of a pool',
        [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200],
      ),
      row('GET /api/v2/agents/:agent_id', 'show an agent', [200, 200, 200, 200, 200, 404, 200, 401, 401, 401, 200, 200, 200, 200, 200, 200]),
      row(
        'DELETE /api/v2/agents/:agent_id',
        'delete an agent that has exited',
        [204, 403, 403, 403, 403, 404, 204, 401, 401, 401, 403, 204, 403, 403, 204, 403],
      ),
    ],
  },
  {
    title: 'The agent endpoints (plain JSON, under /api/agent)',
    rows: [
      // own  mprj prd  padm mem  out  otok agnt rvkd anon mpol mpoo mtea mwsp site pcus
      // The mirror image of /api/v2: only agent tokens authenticate here, every other one is 401.
      row('POST /api/agent/register', 'an agent joins its pool', [401, 401, 401, 401, 401, 401, 401, 201, 401, 401, 401, 401, 401, 401, 401, 401]),
      row('POST /api/agent/status', 'an agent reports its status', [401, 401, 401, 401, 401, 401, 401, 200, 401, 401, 401, 401, 401, 401, 401, 401]),
      row('POST /api/agent/jobs/claim', 'an agent claims a job of its pool', [401, 401, 401, 401, 401, 401, 401, 200, 401, 401, 401, 401, 401, 401, 401, 401]),
      row('POST /api/agent/jobs/:job_id/start', 'an agent starts its job', [401, 401, 401, 401, 401, 401, 401, 200, 401, 401, 401, 401, 401, 401, 401, 401]),
      row(
        'GET /api/agent/jobs/:job_id/inputs',
        "an agent reads its job's inputs",
        [401, 401, 401, 401, 401, 401, 401, 200, 401, 401, 401, 401, 401, 401, 401, 401],
      ),
      row(
        'POST /api/agent/jobs/:job_id/log',
        "an agent appends to its job's log",
        [401, 401, 401, 401, 401, 401, 401, 204, 401, 401, 401, 401, 401, 401, 401, 401],
      ),
      row(
        'POST /api/agent/jobs/:job_id/heartbeat',
        'an agent beats for its job',
        [401, 401, 401, 401, 401, 401, 401, 200, 401, 401, 401, 401, 401, 401, 401, 401],
      ),
      row('POST /api/agent/jobs/:job_id/planned', 'an agent reports a plan', [401, 401, 401, 401, 401, 401, 401, 204, 401, 401, 401, 401, 401, 401, 401, 401]),
      row(
        'POST /api/agent/jobs/:job_id/applied',
        'an agent reports an apply',
        [401, 401, 401, 401, 401, 401, 401, 204, 401, 401, 401, 401, 401, 401, 401, 401],
      ),
      row(
        'POST /api/agent/jobs/:job_id/failed',
        'an agent reports a failed job',
        [401, 401, 401, 401, 401, 401, 401, 204, 401, 401, 401, 401, 401, 401, 401, 401],
      ),
    ],
  },
];

export const ROWS: Row[] = MATRIX.flatMap((s) => s.rows);
