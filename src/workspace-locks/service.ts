// Workspace locks, as TFE keeps them: one holder at a time (a user, a team or a run), who alone
// may unlock; workspace admins may force-unlock. The table's primary key is the lock itself, so
// two lockers racing cannot both win on either engine.
import { authorize } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import { actingUserId, type Principal } from '../auth/principal.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { errors } from '../jsonapi/errors.ts';
import { now } from '../time.ts';
import type { WorkspaceBase, WorkspaceRef, WorkspacesService } from '../workspaces/service.ts';
import type { TeamsService } from '../teams/service.ts';
import * as store from './store.ts';
import type { HolderType, WorkspaceLock } from './store.ts';

export type { HolderType, WorkspaceLock };

export interface LockHolder {
  type: HolderType;
  id: string;
}

const NOUN: Record<HolderType, string> = { users: 'User', teams: 'Team', runs: 'Run' };

/** go-tfe maps a 409 on lock to ErrWorkspaceLocked, and reads "is locked by Run|Team|User" on unlock. */
export const alreadyLocked = () => errors.conflict('Unable to lock workspace. The workspace is already locked.');
const lockedBy = (holder: HolderType) => errors.conflict(`Unable to unlock workspace. The workspace is locked by ${NOUN[holder]}.`);
const alreadyUnlocked = () => errors.conflict('Unable to unlock workspace. The workspace is already unlocked.');

/**
 * Who a request acts as when it takes a lock: a team token its team (as in TFE, where another
 * caller's unlock then answers "locked by Team"), else its user (an organization token's service user).
 */
export function holderOf(principal: Principal): LockHolder {
  if (principal.kind === 'team') return { type: 'teams', id: principal.team.id };
  return { type: 'users', id: actingUserId(principal)! };
}

/** Who holds a workspace's lock, as a view of the workspace shows it. */
export interface WorkspaceLockView {
  holderType: 'users' | 'teams' | 'runs';
  holderId: string;
  reason: string | null;
}

export function createWorkspaceLocksService(deps: { database: Database; workspaces: WorkspacesService; teams: Pick<TeamsService, 'beforeDelete'> }) {
  const { database, workspaces } = deps;
  const db = database.db;

  // A deleted team's locks go with it, in the same transaction: nobody could release them but a force-unlock.
  deps.teams.beforeDelete((q, teamId) => store.deleteLocksOf(q, { type: 'teams', id: teamId }).then(() => undefined));

  /** Takes the lock for `holder`, or 409 when anyone holds it (the holder itself included, as TFE). */
  async function acquire(q: Queryable, workspaceId: string, holder: LockHolder, reason: string | null): Promise<void> {
    const lock = { workspaceId, holderType: holder.type, holderId: holder.id, reason, lockedAt: now() };
    await guarded(store.insertLock(q, lock), { unique: alreadyLocked, foreignKey: () => errors.notFound() });
  }

  /** Releases `holder`'s lock; 409 naming the holder when someone else holds it, or when nobody does. */
  async function release(q: Queryable, workspaceId: string, holder: LockHolder): Promise<void> {
    if ((await store.deleteLock(q, workspaceId, holder)) === 1) return;
    const current = await store.findLock(q, workspaceId);
    throw current ? lockedBy(current.holderType) : alreadyUnlocked();
  }

  return {
    acquire,
    release,
    /** Releases `holder`'s lock if it still holds it (a run that ends; its lock may have been forced away). */
    releaseIfHeld: async (q: Queryable, workspaceId: string, holder: LockHolder): Promise<void> => {
      await store.deleteLock(q, workspaceId, holder);
    },
    /** The lock of a workspace, if any (for state versions: who may write). */
    current: (q: Queryable, workspaceId: string, forUpdate = false) => store.findLock(q, workspaceId, forUpdate),

    async lock(caller: Caller, ref: WorkspaceRef, reason: string | null): Promise<WorkspaceBase> {
      const found = await workspaces.find(caller, ref);
      authorize(found, 'lock-workspace');
      await acquire(db, found.workspace.id, holderOf(caller.principal), reason);
      return workspaces.view(found);
    },

    async unlock(caller: Caller, ref: WorkspaceRef): Promise<WorkspaceBase> {
      const found = await workspaces.find(caller, ref);
      authorize(found, 'lock-workspace');
      await release(db, found.workspace.id, holderOf(caller.principal));
      return workspaces.view(found);
    },

    async forceUnlock(caller: Caller, ref: WorkspaceRef): Promise<WorkspaceBase> {
      const found = await workspaces.find(caller, ref);
      authorize(found, 'force-unlock-workspace');
      if ((await store.deleteLock(db, found.workspace.id)) === 0) throw alreadyUnlocked();
      return workspaces.view(found);
    },
  };
}

export type WorkspaceLocksService = ReturnType<typeof createWorkspaceLocksService>;
