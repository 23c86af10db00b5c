import { toOne } from '../jsonapi/relationships.ts';
import { tagRelationships } from '../tags/serialize.ts';
import { effectiveAutoDestroy, type WorkspaceView } from './service.ts';

export function workspaceResource({ workspace: w, organizationName, project, permissions, lock, tags }: WorkspaceView) {
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
      // The flat tags are the keys of the workspace's own bindings.
      'tag-names': tags.own.map((b) => b.key),
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      project: toOne('projects', w.projectId),
      // Only while locked: go-tfe reads an absent relationship as "nobody" (LockedBy nil).
      ...(lock ? { 'locked-by': toOne(lock.holderType, lock.holderId) } : {}),
      ...tagRelationships(`/api/v2/workspaces/${w.id}`, tags.effective),
    },
    links: { self: `/api/v2/organizations/${org}/workspaces/${encodeURIComponent(w.name)}` },
  };
}
