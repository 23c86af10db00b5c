import { toOne } from '../jsonapi/relationships.ts';
import { tagRelationships } from '../tags/serialize.ts';
import type { WorkspaceView } from '../workspace-views/service.ts';
import { effectiveAutoDestroy } from './service.ts';

export function workspaceResource(v: WorkspaceView) {
  const { workspace: w, organizationName, project, permissions, execution, lock, currentConfigurationVersionId: current, tags, runs, resourceCount } = v;
  const org = encodeURIComponent(organizationName);
  const name = encodeURIComponent(w.name);
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
      'auto-destroy-at': v.autoDestroyAt === undefined ? w.autoDestroyAt : v.autoDestroyAt,
      'auto-apply': w.autoApply,
      'auto-apply-run-trigger': w.autoApplyRunTrigger,
      'allow-destroy-plan': w.allowDestroyPlan,
      'assessments-enabled': w.assessmentsEnabled,
      'file-triggers-enabled': w.fileTriggersEnabled,
      'global-remote-state': w.globalRemoteState,
      'queue-all-runs': w.queueAllRuns,
      'speculative-enabled': w.speculativeEnabled,
      'structured-run-output-enabled': w.structuredRunOutputEnabled,
      'terraform-version': w.terraformVersion,
      'working-directory': w.workingDirectory,
      'trigger-prefixes': w.triggerPrefixes,
      'trigger-patterns': w.triggerPatterns,
      'source-name': w.sourceName,
      'source-url': w.sourceUrl,
      'execution-mode': execution.mode,
      // TFE's deprecated view of the mode: whether runs execute anywhere but on the caller's machine.
      operations: execution.mode !== 'local',
      'setting-overwrites': { 'execution-mode': execution.own, 'agent-pool': execution.own },
      source: 'tfe-api',
      locked: lock !== null,
      'runs-count': runs.count,
      // go-tfe reads the count under this name.
      'workspace-kpis-runs-count': runs.count,
      'resource-count': resourceCount,
      'lock-reason': lock?.reason ?? null,
      // Hangar keeps no state, so nothing stands in the way of deleting a workspace.
      actions: { 'is-destroyable': true },
      permissions,
      // The flat tags are the keys of the workspace's own bindings.
      'tag-names': tags.own.map((b) => b.key),
    },
    relationships: {
      organization: toOne('organizations', organizationName),
      project: toOne('projects', w.projectId),
      'agent-pool': { data: execution.agentPoolId ? { id: execution.agentPoolId, type: 'agent-pools' } : null },
      // Always present, null when none: go-tfe's UnassignSSHKey test reads SSHKey as nil.
      'ssh-key': { data: w.sshKeyId ? { id: w.sshKeyId, type: 'ssh-keys' } : null },
      'current-configuration-version': current
        ? { data: { id: current, type: 'configuration-versions' }, links: { related: `/api/v2/configuration-versions/${current}` } }
        : { data: null },
      'current-run': runs.current ? toOne('runs', runs.current) : { data: null },
      'latest-run': runs.current ? toOne('runs', runs.current) : { data: null },
      'current-state-version': v.currentStateVersionId ? toOne('state-versions', v.currentStateVersionId) : { data: null },
      'remote-state-consumers': { links: { related: `/api/v2/workspaces/${w.id}/relationships/remote-state-consumers` } },
      // Only while locked: go-tfe reads an absent relationship as "nobody" (LockedBy nil).
      ...(lock ? { 'locked-by': toOne(lock.holderType, lock.holderId) } : {}),
      ...tagRelationships(`/api/v2/workspaces/${w.id}`, tags.effective),
      vars: { data: v.variableIds.map((id) => ({ id, type: 'vars' })) },
    },
    links: { self: `/api/v2/organizations/${org}/workspaces/${name}`, 'self-html': `/app/${org}/workspaces/${name}` },
  };
}
