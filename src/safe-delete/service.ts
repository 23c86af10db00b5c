// Safe delete (TFE's `actions/safe-delete`, what `terraform workspace delete` calls): the
// workspace goes only while nobody holds its lock and its current state manages no resource.
// go-tfe tells the refusals apart by their wording ("locked", "being processed", otherwise
// "still managing resources").
import type { Caller } from '../auth/caller.ts';
import { errors } from '../jsonapi/errors.ts';
import type { StateVersionsService } from '../state-versions/service.ts';
import type { WorkspaceLocksService } from '../workspace-locks/service.ts';
import type { WorkspaceRef, WorkspacesService } from '../workspaces/service.ts';

export function createSafeDeleteService(deps: { workspaces: WorkspacesService; workspaceLocks: WorkspaceLocksService; stateVersions: StateVersionsService }) {
  return {
    async safeDelete(caller: Caller, ref: WorkspaceRef): Promise<void> {
      await deps.workspaces.destroy(caller, ref, async (q, workspaceId) => {
        if (await deps.workspaceLocks.current(q, workspaceId)) {
          throw errors.conflict('Workspace is currently locked. Workspace must be unlocked before it can be safely deleted');
        }
        if (await deps.stateVersions.managesResources(q, workspaceId)) {
          throw errors.conflict('workspace cannot be safely deleted because it is still managing resources');
        }
      });
    },
  };
}

export type SafeDeleteService = ReturnType<typeof createSafeDeleteService>;
