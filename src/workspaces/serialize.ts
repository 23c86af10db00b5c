import { toOne } from '../jsonapi/relationships.ts';
import { effectiveAutoDestroy, type WorkspaceView } from './service.ts';

export function workspaceResource({ workspace: w, organizationName, project, permissions, lock }: WorkspaceView) {
  const org = encodeURIComponent(organizationName);
  return {
    id: w.id,
    type: 'workspaces',
    attributes: {
      name: w.name,
      description: w.description,
      'created-at': w.createdAt,
      'updated-at': w.updatedAt,
      'auto-destroy-activity-duration': effectiveAutoDestroy(w, project),
      'inherits-project-auto-destroy': w.inheritsProjectAutoDestroy,
      'auto-destroy-at': null,
      'execution-mode': 'remote',
      source: 'tfe-api',
      locked: lock !== null,
      'lock-reason': lock?.reason ?? null,
      permissions,
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      project: toOne('projects', w.projectId),
      // Only while locked: go-tfe reads an absent relationship as "nobody" (LockedBy nil).
      ...(lock ? { 'locked-by': toOne(lock.holderType, lock.holderId) } : {}),
    },
    links: { self: `/api/v2/organizations/${org}/workspaces/${encodeURIComponent(w.name)}` },
  };
}
