// The permission model on its own, without HTTP or a database: every organization flag against
// every organization permission, every project access level against every project permission,
// and the one table that decides between 404 and 403. Each expectation is written out here,
// independently of src/auth, so that a change to a rule has to be made twice, on purpose.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACTIONS, authorize, can, SEE, type Action, type Kind } from '../src/auth/authorize.ts';
import { holds, ORGANIZATION_PERMISSIONS, type OrganizationPermission, type Standing } from '../src/auth/organization.ts';
import type { Principal } from '../src/auth/principal.ts';
import { ungiven } from '../src/auth/gifts.ts';
import { projectGrant } from '../src/auth/project-grants.ts';
import { projectAuthority, type ProjectAuthority } from '../src/auth/project-scope.ts';
import { emptyAccess, fullAccess, ORGANIZATION_ACCESS_KEYS, PROJECT_ACCESS_LEVELS, type OrganizationAccessKey, type ProjectGrant } from '../src/grants.ts';
import { ApiError } from '../src/jsonapi/errors.ts';

function standing(flags: readonly OrganizationAccessKey[] = [], extra: Partial<Standing> = {}): Standing {
  const access = emptyAccess();
  for (const f of flags) access[f] = true;
  return {
    organizationId: 'org-1',
    organizationName: 'acme',
    member: true,
    owner: false,
    viaOrganizationToken: false,
    teamIds: ['team-mine'],
    access,
    ...extra,
  };
}
const OWNER = standing([], { owner: true, access: fullAccess() });
const STRANGER = standing([], { member: false, teamIds: [] });

/** Which single flag grants each organization permission: 'members' = every member, [] = owners only. */
const GRANTED_BY: Record<OrganizationPermission, 'members' | OrganizationAccessKey[]> = {
  read: 'members',
  update: [],
  destroy: [],
  'manage-organization-token': [],
  'read-teams': 'members',
  'manage-teams': ['manage-teams'],
  'manage-membership': ['manage-membership', 'manage-teams'],
  'manage-organization-access': ['manage-organization-access'],
  'see-secret-teams': ['access-secret-teams'],
  'create-project': ['manage-projects'],
  'read-all-projects': ['read-projects', 'manage-projects'],
  'manage-all-projects': ['manage-projects'],
  'read-all-workspaces': ['read-workspaces', 'manage-workspaces', 'manage-projects'],
  'manage-all-workspaces': ['manage-workspaces', 'manage-projects'],
  'read-policies': 'members',
  'manage-policies': ['manage-policies'],
  'read-agent-pools': 'members',
  'manage-agent-pools': ['manage-agent-pools'],
  'read-variable-sets': ['read-workspaces', 'manage-workspaces', 'manage-projects'],
  'manage-variable-sets': ['manage-workspaces', 'manage-projects'],
  'read-ssh-keys': ['manage-vcs-settings', 'manage-workspaces', 'manage-projects'],
  'manage-ssh-keys': ['manage-vcs-settings'],
};

describe('organization permissions: every flag against every permission', () => {
  it('lists every permission once', () => {
    assert.deepEqual([...ORGANIZATION_PERMISSIONS].sort(), Object.keys(GRANTED_BY).sort());
  });

  for (const permission of ORGANIZATION_PERMISSIONS) {
    it(permission, () => {
      const grantedBy = GRANTED_BY[permission];
      assert.equal(holds(standing(), permission), grantedBy === 'members', 'a member with no flag');
      for (const flag of ORGANIZATION_ACCESS_KEYS) {
        const expected = grantedBy === 'members' || grantedBy.includes(flag);
        assert.equal(holds(standing([flag]), permission), expected, `a member with only ${flag}`);
      }
      assert.equal(holds(OWNER, permission), true, 'an owner');
      assert.equal(holds(STRANGER, permission), false, 'a caller outside the organization');
    });
  }
});

type Field = keyof ProjectAuthority;
const FIELDS: Field[] = [
  'read',
  'update',
  'destroy',
  'createWorkspace',
  'moveWorkspace',
  'readTeams',
  'manageTeams',
  'readWorkspaces',
  'manageWorkspaces',
  'deleteWorkspaces',
];

/** What a member holding only this grant on a (non-default) project may do there. */
const LEVEL_ALLOWS: Record<(typeof PROJECT_ACCESS_LEVELS)[number], Field[]> = {
  read: ['read', 'readWorkspaces'],
  write: ['read', 'readWorkspaces'],
  maintain: ['read', 'readWorkspaces', 'createWorkspace', 'manageWorkspaces', 'deleteWorkspaces'],
  admin: FIELDS,
  custom: ['read', 'readWorkspaces'],
};

/** The permission values each level implies, as TFE's table of project team access states them. */
const LEVEL_VALUES = {
  read: { project: ['read', 'none', 'none'], workspace: ['read', 'none', 'read', 'read'], flags: [] },
  write: { project: ['read', 'none', 'none'], workspace: ['apply', 'read', 'write', 'write'], flags: ['locking'] },
  maintain: { project: ['read', 'none', 'none'], workspace: ['apply', 'read', 'write', 'write'], flags: ['create', 'locking', 'delete', 'run-tasks'] },
  admin: {
    project: ['delete', 'manage', 'write'],
    workspace: ['apply', 'read', 'write', 'write'],
    flags: ['create', 'locking', 'delete', 'move', 'run-tasks'],
  },
  custom: { project: ['read', 'none', 'none'], workspace: ['read', 'none', 'none', 'none'], flags: [] },
} as const;

describe('project access: every level against every permission', () => {
  for (const level of PROJECT_ACCESS_LEVELS) {
    it(`${level}: the values it implies`, () => {
      const g = projectGrant(level);
      const expected = LEVEL_VALUES[level];
      assert.deepEqual([g.project.settings, g.project.teams, g.project['variable-sets']], expected.project);
      assert.deepEqual([g.workspace.runs, g.workspace['sentinel-mocks'], g.workspace['state-versions'], g.workspace.variables], expected.workspace);
      for (const flag of ['create', 'locking', 'delete', 'move', 'run-tasks'] as const) {
        assert.equal(g.workspace[flag], (expected.flags as readonly string[]).includes(flag), flag);
      }
    });

    it(`${level}: what a member holding it may do`, () => {
      const authority = projectAuthority(standing(), { isDefault: false }, [projectGrant(level)]);
      for (const field of FIELDS) assert.equal(authority[field], LEVEL_ALLOWS[level].includes(field), field);
    });
  }

  it('custom grants set single permissions, and the highest grant wins', () => {
    const move = projectGrant('custom', { workspace: { move: true } });
    assert.equal(projectAuthority(standing(), { isDefault: false }, [move]).moveWorkspace, true);
    const settings = projectGrant('custom', { project: { settings: 'update' } });
    const both = projectAuthority(standing(), { isDefault: false }, [projectGrant('read'), settings]);
    assert.deepEqual([both.update, both.destroy], [true, false]);
  });

  it('organization flags stand on their own: manage-projects everything, manage-workspaces workspaces (and creating only in the default project)', () => {
    assert.ok(FIELDS.every((f) => projectAuthority(standing(['manage-projects']), { isDefault: false }, [])[f]));
    const onProject = projectAuthority(standing(['manage-workspaces']), { isDefault: false }, []);
    const onDefault = projectAuthority(standing(['manage-workspaces']), { isDefault: true }, []);
    assert.deepEqual([onProject.read, onProject.readWorkspaces, onProject.manageWorkspaces, onProject.createWorkspace], [false, true, true, false]);
    assert.deepEqual([onDefault.read, onDefault.createWorkspace], [true, true]);
    assert.ok(FIELDS.every((f) => !projectAuthority(standing(), { isDefault: false }, [])[f]));
    assert.ok(FIELDS.every((f) => !projectAuthority(STRANGER, { isDefault: false }, [projectGrant('admin')])[f]));
  });
});

describe('giving access: nobody but an owner gives a permission it does not hold', () => {
  const flags = (s: Standing, ...given: OrganizationAccessKey[]) => ungiven({ standing: s, organizationAccess: given, projects: [] });
  const onProject = (held: ProjectGrant[], to: ProjectGrant, from?: ProjectGrant, s: Standing = standing()) =>
    ungiven({ standing: s, organizationAccess: [], projects: [{ projectId: 'prj-1', to, from, held }] });

  it('organization flags: each one given must be held, or implied by one held', () => {
    assert.deepEqual(flags(standing(['manage-policies']), 'manage-policies'), []);
    assert.deepEqual(flags(standing(['manage-policies']), 'manage-policies', 'manage-projects', 'manage-teams'), ['manage-projects', 'manage-teams']);
    assert.deepEqual(flags(standing(['manage-teams']), 'manage-membership'), []);
    assert.deepEqual(flags(standing(['manage-membership']), 'manage-teams'), ['manage-teams']);
    assert.deepEqual(flags(standing(['manage-projects']), 'read-projects', 'manage-workspaces', 'read-workspaces'), []);
    assert.deepEqual(flags(standing(['manage-workspaces']), 'read-workspaces', 'manage-projects'), ['manage-projects']);
    assert.deepEqual(flags(OWNER, ...ORGANIZATION_ACCESS_KEYS), []);
  });

  it("project grants: each permission raised must be held at its new value by one of the caller's grants", () => {
    const admin = projectGrant('admin');
    const teamsManager = projectGrant('custom', { project: { teams: 'manage' } });
    assert.deepEqual(onProject([admin], admin), []);
    assert.deepEqual(onProject([admin], projectGrant('custom', { project: { settings: 'delete' } })), []);
    assert.ok(
      onProject([teamsManager], admin).includes(
        'on project prj-1: project-access.settings delete, project-access.variable-sets write, workspace-access.runs apply, workspace-access.sentinel-mocks read, workspace-access.state-versions write, workspace-access.variables write, workspace-access.create, workspace-access.locking, workspace-access.delete, workspace-access.move, workspace-access.run-tasks, access admin',
      ),
    );
    // Lowering, or keeping, gives nothing.
    assert.deepEqual(onProject([teamsManager], projectGrant('read'), admin), []);
    assert.deepEqual(onProject([teamsManager], admin, admin), []);
    // Only the raised permission counts: write → maintain adds create, delete, run-tasks and the level.
    assert.deepEqual(onProject([projectGrant('write')], projectGrant('maintain'), projectGrant('write')), [
      'on project prj-1: workspace-access.create, workspace-access.delete, workspace-access.run-tasks, access maintain',
    ]);
    // The highest value of each permission across the caller's grants counts.
    const moves = projectGrant('custom', { workspace: { move: true } });
    const settings = projectGrant('custom', { project: { settings: 'update' } });
    assert.deepEqual(onProject([moves, settings], projectGrant('custom', { project: { settings: 'update' }, workspace: { move: true } })), []);
    // No grant at all holds nothing, not even read.
    assert.ok(onProject([], projectGrant('read')).length > 0);
  });

  it('project grants: manage-projects and owners hold every permission on every project', () => {
    assert.deepEqual(onProject([], projectGrant('admin'), undefined, standing(['manage-projects'])), []);
    assert.deepEqual(onProject([], projectGrant('admin'), undefined, OWNER), []);
    assert.ok(onProject([], projectGrant('admin'), undefined, standing(['manage-workspaces', 'read-projects'])).length > 0);
  });
});

/** How a caller who sees the subject but may not act is answered: the one table of 404 versus 403. */
const REFUSAL: Record<Action, 404 | 403> = {
  'create-organization': 403,
  'administer-site': 404,
  'manage-user-tokens': 404,
  'read-user-email': 404,
  'update-account': 403,
  'read-organization': 404,
  'update-organization': 403,
  'destroy-organization': 403,
  'manage-organization-token': 404,
  'read-teams': 403,
  'create-team': 403,
  'list-team-tokens': 404,
  'grant-organization-access': 403,
  'give-access': 403,
  'create-project': 403,
  'read-policies': 403,
  'manage-policies': 403,
  'override-policy-check': 403,
  'read-agent-pools': 403,
  'manage-agent-pools': 403,
  'manage-agent-tokens': 404,
  'read-team': 404,
  'update-team': 403,
  'destroy-team': 403,
  'manage-team-token': 403,
  'manage-team-membership': 403,
  'manage-workspace-team-access': 403,
  'read-workspace-team-grant': 404,
  'queue-run': 403,
  'apply-run': 403,
  'manage-owners-team-membership': 403,
  'read-project': 404,
  'update-project': 403,
  'destroy-project': 403,
  'create-workspace': 403,
  'move-workspaces-into': 404,
  'manage-team-access': 403,
  'read-team-grant': 404,
  'manage-project-tags': 403,
  'read-workspace': 404,
  'update-workspace': 403,
  'destroy-workspace': 403,
  'manage-workspace-tags': 403,
  'manage-notifications': 403,
  'lock-workspace': 403,
  'force-unlock-workspace': 403,
  'read-state-outputs': 403,
  'read-state': 403,
  'write-state': 403,
  'move-workspace-out': 403,
  'read-memberships': 403,
  'invite-member': 403,
  'read-membership': 404,
  'accept-membership': 403,
  'destroy-membership': 403,
  'read-variables': 403,
  'write-variables': 403,
  'download-sentinel-mocks': 403,
  'read-variable-sets': 403,
  'manage-variable-sets': 403,
  'read-ssh-keys': 403,
  'manage-ssh-keys': 403,
  'read-project-variable-sets': 403,
  'manage-project-variable-sets': 403,
};

const NO_AUTHORITY = projectAuthority(standing(), { isDefault: false }, []);
const READ_ONLY = projectAuthority(standing(), { isDefault: false }, [projectGrant('read')]);
const ADMIN = projectAuthority(standing(), { isDefault: false }, [projectGrant('admin')]);
const user = (id: string, isSiteAdmin = false): Principal => ({
  kind: 'user',
  tokenId: 'at-1',
  user: { id, username: id, isSiteAdmin, isServiceAccount: false },
});
const orgToken: Principal = { kind: 'organization', tokenId: 'at-2', organizationId: 'org-1', organizationName: 'acme', serviceUserId: 'user-svc' };

/** Per kind of subject: one the caller does not see (null: every caller sees it), one it sees with no rights, one with every right. */
const SUBJECTS: Record<Kind, { hidden: unknown; bare: unknown; full: unknown }> = {
  // Every right: a site admin (the site-admin API is theirs alone).
  principal: { hidden: null, bare: { principal: orgToken }, full: { principal: user('user-1', true) } },
  account: { hidden: null, bare: { principal: user('user-1'), userId: 'user-2' }, full: { principal: user('user-1'), userId: 'user-1' } },
  organization: { hidden: { standing: STRANGER }, bare: { standing: standing() }, full: { standing: OWNER } },
  team: {
    hidden: { standing: standing(), team: { id: 'team-secret', visibility: 'secret', isOwners: false } },
    bare: { standing: standing(), team: { id: 'team-owners', visibility: 'organization', isOwners: true } },
    full: { standing: OWNER, team: { id: 'team-owners', visibility: 'secret', isOwners: true } },
  },
  project: {
    hidden: { standing: standing(), authority: NO_AUTHORITY },
    bare: { standing: standing(), authority: READ_ONLY },
    full: { standing: OWNER, authority: ADMIN },
  },
  'team-grant': {
    hidden: { standing: standing(), authority: READ_ONLY, grant: { teamId: 'team-other' } },
    bare: { standing: standing(), authority: READ_ONLY, grant: { teamId: 'team-mine' } },
    full: { standing: OWNER, authority: ADMIN, grant: { teamId: 'team-other' } },
  },
  workspace: {
    hidden: { standing: standing(), authority: NO_AUTHORITY },
    bare: { standing: standing(), authority: READ_ONLY },
    full: { standing: OWNER, authority: ADMIN },
  },
  'workspace-team-grant': {
    hidden: { standing: standing(), authority: READ_ONLY, grant: { teamId: 'team-other' } },
    bare: { standing: standing(), authority: READ_ONLY, grant: { teamId: 'team-mine' } },
    full: { standing: OWNER, authority: ADMIN, grant: { teamId: 'team-other' } },
  },
  gift: {
    hidden: { standing: STRANGER, organizationAccess: [], projects: [] },
    bare: { standing: standing(), organizationAccess: ['manage-policies'], projects: [] },
    full: { standing: OWNER, organizationAccess: ['manage-policies'], projects: [{ projectId: 'prj-1', to: projectGrant('admin'), held: [] }] },
  },
  membership: {
    hidden: { principal: user('user-1'), standing: standing(), membership: { userId: 'user-2' } },
    bare: { principal: user('user-1'), standing: OWNER, membership: { userId: 'user-2' } },
    full: { principal: user('user-1'), standing: OWNER, membership: { userId: 'user-1' } },
  },
};

function statusOf(subject: unknown, action: Action): number {
  try {
    authorize(subject as never, action);
    return 200;
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return e.status;
  }
}

describe('authorize: 404 or 403 from one table', () => {
  it('has a refusal for every action, and a SEE action for every kind of subject', () => {
    assert.deepEqual(Object.keys(ACTIONS).sort(), Object.keys(REFUSAL).sort());
    for (const [action, row] of Object.entries(ACTIONS)) assert.equal(row.deny.status, REFUSAL[action as Action], action);
    for (const see of Object.values(SEE)) if (see !== null) assert.equal(REFUSAL[see], 404, `${see} decides visibility, so it hides`);
  });

  for (const action of Object.keys(ACTIONS) as Action[]) {
    it(action, () => {
      const subjects = SUBJECTS[ACTIONS[action].on];
      assert.equal(statusOf(subjects.full, action), 200, 'allowed with every right');
      assert.equal(can(subjects.full as never, action), true);
      if (subjects.hidden !== null) {
        assert.equal(statusOf(subjects.hidden, action), 404, 'a caller who does not see the subject');
        assert.equal(can(subjects.hidden as never, action), false);
      }
      // Rights every member holds cannot be refused to one who sees the subject.
      if (can(subjects.bare as never, action)) return;
      assert.equal(statusOf(subjects.bare, action), REFUSAL[action], 'a caller who sees the subject without the right');
    });
  }
});
