import { toOne } from '../jsonapi/relationships.ts';
import { tagRelationships } from '../tags/serialize.ts';
import { effectiveAutoDestroy, type WorkspaceView } from './service.ts';

export function workspaceResource({ workspace: w, organizationName, project, permissions, tags }: WorkspaceView) {
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
      locked: false,
      permissions,
      // The flat tags are the keys of the workspace's own bindings.
      'tag-names': tags.own.map((b) => b.key),
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      project: toOne('projects', w.projectId),
      ...tagRelationships(`/api/v2/workspaces/${w.id}`, tags.effective),
    },
    links: { self: `/api/v2/organizations/${org}/workspaces/${encodeURIComponent(w.name)}` },
  };
}
