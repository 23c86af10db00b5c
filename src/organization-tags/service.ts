// An organization's tags as one pool: listed with how many workspaces carry each, deleted from
// every workspace at once, and added to many workspaces by the tag's id. The tags domain keeps
// the bindings; this one decides, workspace by workspace, what the caller may change, since
// that needs the workspaces domain (which is built on the tags domain, not under it).
import type { Caller } from '../auth/caller.ts';
import { can, denied } from '../auth/authorize.ts';
import { errors, unknownIds } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationTag, TagsService } from '../tags/service.ts';
import type { WorkspacesService } from '../workspaces/service.ts';

export interface OrganizationTagView extends OrganizationTag {
  organizationName: string;
}

export function createOrganizationTagsService(deps: { organizationLookup: OrganizationLookup; tags: TagsService; workspaces: WorkspacesService }) {
  return {
    /**
     * Any member lists them. `excludeWorkspaceId` leaves out the tags of that workspace; a
     * workspace the caller may not read (or no workspace at all: go-tfe's own test sends a tag
     * id) excludes nothing, so the answer says nothing about a workspace the caller cannot see.
     */
    async list(caller: Caller, organizationName: string, filter: { search?: string; excludeWorkspaceId?: string }, page: Page) {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      let excludeWorkspaceId: string | undefined;
      if (filter.excludeWorkspaceId) {
        const [found] = await deps.workspaces.inOrganization(standing, org, [filter.excludeWorkspaceId]);
        if (found && can(found, 'read-workspace')) excludeWorkspaceId = found.workspace.id;
      }
      const { items, total } = await deps.tags.listOrganization(
        org.id,
        { ...(filter.search ? { search: filter.search } : {}), ...(excludeWorkspaceId ? { excludeWorkspaceId } : {}) },
        page,
      );
      return { items: items.map((t): OrganizationTagView => ({ ...t, organizationName: org.name })), total };
    },

    /**
     * Deletes the tags from every workspace of the organization, all or nothing: the caller must
     * be allowed to manage the tags of each workspace that carries one (403 otherwise, naming
     * none, since some may be workspaces it cannot see). A tag no workspace carries takes nothing
     * from anyone, so any member may delete it. 422 for an id that is not the organization's tag.
     */
    async delete(caller: Caller, organizationName: string, tagIds: readonly string[]): Promise<void> {
      const { org, standing } = await deps.organizationLookup.find(caller, organizationName);
      const tags = await deps.tags.tagsOf(org.id, tagIds);
      const known = new Set(tags.map((t) => t.id));
      const problems = unknownIds(
        tagIds,
        (id) => known.has(id),
        'Tag',
        (i) => `/data/${i}/id`,
      );
      if (problems.length) throw errors.invalid(problems);
      const holders = await deps.tags.holdersOf(org.id, tags);
      const found = await deps.workspaces.inOrganization(standing, org, holders);
      if (found.length !== holders.length || found.some((f) => !can(f, 'manage-workspace-tags'))) {
        throw denied('manage-workspace-tags', 'You are not allowed to manage the tags of every workspace that carries these tags');
      }
      await deps.tags.deleteFromOrganization(org.id, tags, holders);
    },

    /**
     * Adds the tag to each workspace, all or nothing: 404 for a tag the caller cannot see, 422
     * at the id of each workspace that is not the organization's or that the caller cannot see,
     * 403 naming the workspaces whose tags it may not manage.
     */
    async addWorkspaces(caller: Caller, tagId: string, workspaceIds: readonly string[]): Promise<void> {
      const tag = await deps.tags.findTag(tagId);
      if (!tag) throw errors.notFound();
      const { org, standing } = await deps.organizationLookup.findById(caller, tag.organizationId);
      const ids = [...new Set(workspaceIds)];
      const found = new Map((await deps.workspaces.inOrganization(standing, org, ids)).map((f) => [f.workspace.id, f]));
      const visible = (id: string) => {
        const f = found.get(id);
        return f !== undefined && can(f, 'read-workspace');
      };
      const problems = unknownIds(workspaceIds, visible, 'Workspace', (i) => `/data/${i}/id`);
      if (problems.length) throw errors.invalid(problems);
      const refused = ids.filter((id) => !can(found.get(id)!, 'manage-workspace-tags'));
      if (refused.length) throw denied('manage-workspace-tags', `You are not allowed to manage the tags of these workspaces: ${refused.join(', ')}`);
      await deps.tags.addToWorkspaces(tag, workspaceIds);
    },
  };
}

export type OrganizationTagsService = ReturnType<typeof createOrganizationTagsService>;
