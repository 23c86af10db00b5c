// Tags on projects and workspaces, as HCP Terraform keeps them: key/value bindings, where a
// key-only tag is a binding whose value is "". The older flat workspace tags (`tag-names`,
// `/relationships/tags`, `search[tags]`) are the keys of the same bindings, so both APIs, and
// the Terraform CLI using either, always agree. A workspace inherits its project's bindings;
// its own binding of a key wins.
//
// The workspaces and projects services call this one to read, check and write the bindings of
// what they create and update (inside their transactions); the tag endpoints call it with a
// workspace or project the caller was found to see.
import type { Transaction } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { authorize, type ProjectSubject } from '../auth/authorize.ts';
import { isUniqueViolation, type Database, type Queryable } from '../db/index.ts';
import type { Schema } from '../db/schema.ts';
import { guarded } from '../db/constraints.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors, type Problem } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { ProjectAccess } from '../projects/access.ts';
import { now } from '../time.ts';
import * as store from './store.ts';
import type { Binding, FlatTag, OrganizationTag, TagMatch } from './store.ts';

export type { Binding, FlatTag, OrganizationTag, TagMatch };

/** The most bindings one workspace or project may hold (HCP Terraform's limit). */
export const MAX_BINDINGS = 10;
export const MAX_KEY_LENGTH = 128;
export const MAX_VALUE_LENGTH = 256;
const TAG_TEXT = /^[A-Za-z0-9_.=+\-@:]+$/;
const RESERVED_PREFIX = /^hcp?:/i;

export interface BindingInput {
  key: string;
  /** "" (or absent in the body) for a key-only tag. */
  value: string;
}

/** A binding as it applies to a workspace; `inheritedFrom` names the project it comes from. */
export interface EffectiveBinding extends Binding {
  inheritedFrom?: string;
}

/** What a create or update body says about a resource's tags; each member absent when not sent. */
export interface TagChange {
  /** `relationships.tag-bindings.data`: the whole set (replace; `[]` clears it). */
  bindings?: BindingInput[];
  /** `attributes.tag-names` (workspaces): on create keys to add, on update the keys to keep. */
  names?: string[];
  /** `relationships.tags.data` (workspaces, on create): flat tags by name or id, added as key-only. */
  refs?: Array<{ id?: string; name?: string }>;
}

export const hasChange = (c: TagChange | undefined): boolean => Boolean(c && (c.bindings || c.names || c.refs));

/** A workspace the caller was found to see (the workspaces service finds it). */
export interface WorkspaceTarget extends ProjectSubject {
  workspace: { id: string; organizationId: string; projectId: string };
}

const keyProblem = (key: string): string | null =>
  key.length === 0
    ? "Key can't be blank"
    : key.length > MAX_KEY_LENGTH
      ? `Key is too long (maximum is ${MAX_KEY_LENGTH} characters)`
      : !TAG_TEXT.test(key)
        ? 'Key may only contain letters, numbers and the characters _ . = + - @ :'
        : RESERVED_PREFIX.test(key)
          ? 'Key may not begin with the reserved prefixes "hc:" or "hcp:"'
          : null;

const valueProblem = (value: string): string | null =>
  value.length > MAX_VALUE_LENGTH
    ? `Value is too long (maximum is ${MAX_VALUE_LENGTH} characters)`
    : value !== '' && !TAG_TEXT.test(value)
      ? 'Value may only contain letters, numbers and the characters _ . = + - @ :'
      : null;

/** 422s for every bad key, value and repeated key, each at its own place in the body. */
function bindingProblems(bindings: readonly BindingInput[], at: (i: number) => string): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  bindings.forEach((b, i) => {
    const k = keyProblem(b.key);
    if (k) problems.push({ pointer: `${at(i)}/attributes/key`, detail: k });
    else if (seen.has(b.key)) problems.push({ pointer: `${at(i)}/attributes/key`, detail: `Key ${b.key} is given more than once` });
    seen.add(b.key);
    const v = valueProblem(b.value);
    if (v) problems.push({ pointer: `${at(i)}/attributes/value`, detail: v });
  });
  return problems;
}

const nameProblems = (names: readonly string[], at: (i: number) => string): Problem[] =>
  names.flatMap((n, i) => {
    const p = keyProblem(n);
    return p ? [{ pointer: at(i), detail: p.replace(/^Key/, 'Tag name') }] : [];
  });

/** Where flat tags sit in a workspace body; the relationship endpoint's body is the list itself. */
const RELATIONSHIP_REFS = { list: '/data/relationships/tags/data', item: (i: number) => `/data/relationships/tags/data/${i}` };

const tooMany = (pointer: string) => errors.invalidAttribute(pointer, `Tag bindings cannot exceed ${MAX_BINDINGS} bindings per resource`);

/** `current` with `changes` applied: new keys appended, existing keys given the new value. */
function merged(current: readonly Binding[], changes: readonly BindingInput[], at: string): Binding[] {
  const result = current.map((b) => ({ ...b }));
  for (const c of changes) {
    const found = result.find((b) => b.key === c.key);
    if (found) found.value = c.value;
    else result.push({ id: newId('tb'), key: c.key, value: c.value, createdAt: at });
  }
  return result;
}

const changedMeanwhile = () => errors.conflict('The workspaces carrying these tags changed meanwhile; try again');

const withoutKeys = (bindings: readonly Binding[], keys: ReadonlySet<string>) => bindings.filter((b) => !keys.has(b.key));

export function createTagsService(deps: { database: Database; projectAccess: ProjectAccess }) {
  const { database } = deps;
  const db = database.db;

  /**
   * Writes each owner's new set, computed from its current one, in one transaction; `then` runs
   * last in it. Two writers of one owner can collide on its unique keys (PostgreSQL); the loser
   * recomputes from the winner's result, as if it had come second. The sets, in `ownerIds` order.
   */
  async function rewrite(
    owner: store.Owner,
    ownerIds: readonly string[],
    next: (current: Binding[], ownerId: string, trx: Transaction<Schema>) => Promise<Binding[]>,
    organizationId?: string,
    then?: (trx: Transaction<Schema>) => Promise<void>,
  ): Promise<Binding[][]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await database.transaction(async (trx) => {
          const current = await store.bindingsOf(trx, owner, ownerIds);
          const results: Binding[][] = [];
          for (const id of ownerIds) {
            const result = await next(current.get(id) ?? [], id, trx);
            await store.writeBindings(trx, owner, id, result);
            results.push(result);
          }
          if (organizationId) {
            const keys = [...new Set(results.flat().map((b) => b.key))];
            await store.ensureTags(
              trx,
              organizationId,
              keys.map((name) => ({ id: newId('tag'), name })),
              now(),
            );
          }
          await then?.(trx);
          return results;
        });
      } catch (e) {
        if (attempt >= 3 || !isUniqueViolation(e)) throw e;
      }
    }
  }

  /**
   * The set a create (`current` empty) or update leaves, from what its body says; 422 for bad
   * input. Flat tags named by id must be the organization's.
   */
  async function resolve(
    q: Queryable,
    organizationId: string | null,
    current: readonly Binding[],
    change: TagChange,
    creating: boolean,
    refsAt = RELATIONSHIP_REFS,
  ): Promise<Binding[]> {
    const at = now();
    const problems = [
      ...bindingProblems(change.bindings ?? [], (i) => `/data/relationships/tag-bindings/data/${i}`),
      ...nameProblems(change.names ?? [], (i) => `/data/attributes/tag-names/${i}`),
      ...nameProblems(
        (change.refs ?? []).map((r) => r.name ?? 'x'),
        (i) => `${refsAt.item(i)}/attributes/name`,
      ),
    ];
    if (problems.length) throw errors.invalid(problems);
    const refIds = (change.refs ?? []).filter((r) => r.name === undefined && r.id !== undefined).map((r) => r.id!);
    const known = organizationId ? new Map((await store.tagsByIds(q, organizationId, refIds)).map((t) => [t.id, t.name])) : new Map<string, string>();
    const unknown = (change.refs ?? []).flatMap((r, i) =>
      r.name === undefined && !known.has(r.id ?? '') ? [{ pointer: `${refsAt.item(i)}/id`, detail: `Tag ${r.id ?? ''} not found` }] : [],
    );
    if (unknown.length) throw errors.invalid(unknown);

    let result: Binding[] = change.bindings
      ? merged([], change.bindings, at).map((b) => {
          const kept = current.find((c) => c.key === b.key);
          return kept ? { ...b, id: kept.id, createdAt: kept.createdAt } : b;
        })
      : [...current];
    if (change.names && !creating) {
      const keep = new Set(change.names);
      result = result.filter((b) => keep.has(b.key));
    }
    const keyOnly = [...(change.names ?? []), ...(change.refs ?? []).map((r) => r.name ?? known.get(r.id!)!)];
    for (const key of keyOnly) if (!result.some((b) => b.key === key)) result.push({ id: newId('tb'), key, value: '', createdAt: at });
    if (result.length > MAX_BINDINGS)
      throw tooMany(change.bindings ? '/data/relationships/tag-bindings/data' : change.names ? '/data/attributes/tag-names' : refsAt.list);
    return result;
  }

  /** Effective bindings of each workspace: two queries whatever their number. */
  async function effectiveOf(q: Queryable, workspaces: ReadonlyArray<{ id: string; projectId: string }>): Promise<Map<string, EffectiveBinding[]>> {
    const [own, inherited] = await Promise.all([
      store.bindingsOf(
        q,
        'workspace',
        workspaces.map((w) => w.id),
      ),
      store.bindingsOf(
        q,
        'project',
        workspaces.map((w) => w.projectId),
      ),
    ]);
    return new Map(
      workspaces.map((w) => {
        const mine = own.get(w.id) ?? [];
        const keys = new Set(mine.map((b) => b.key));
        const fromProject = (inherited.get(w.projectId) ?? []).filter((b) => !keys.has(b.key)).map((b) => ({ ...b, inheritedFrom: w.projectId }));
        return [w.id, [...mine, ...fromProject]];
      }),
    );
  }

  /** A project the caller may read; for writing, one whose tags it may also manage. */
  const projectTarget = async (caller: Caller, projectId: string, write: boolean) => {
    const found = await deps.projectAccess.find(caller, projectId);
    if (write) authorize(found, 'manage-project-tags');
    return found;
  };

  /** PATCH …/tag-bindings: adds keys and changes values, never removes; answers the whole set. */
  async function addBindings(owner: store.Owner, ownerId: string, organizationId: string | undefined, bindings: readonly BindingInput[]) {
    const problems = bindingProblems(bindings, (i) => `/data/${i}`);
    if (problems.length) throw errors.invalid(problems);
    const [result] = await rewrite(
      owner,
      [ownerId],
      async (current) => {
        const result = merged(current, bindings, now());
        if (result.length > MAX_BINDINGS) throw tooMany('/data');
        return result;
      },
      organizationId,
    );
    return result!;
  }

  return {
    // For the workspaces and projects services.

    /** owner id → own bindings, for a page of workspaces or projects (one query). */
    workspaceBindings: (q: Queryable, ids: readonly string[]) => store.bindingsOf(q, 'workspace', ids),
    projectBindings: (q: Queryable, ids: readonly string[]) => store.bindingsOf(q, 'project', ids),
    effectiveOf,

    /** Checks a create's tags (after authorization, before anything is written); 422 when bad. */
    async checkNew(change: TagChange | undefined, organizationId: string | null): Promise<void> {
      if (hasChange(change)) await resolve(db, organizationId, [], change!, true);
    },

    /** Writes the tags of a workspace or project just created or being updated, inside the caller's transaction. */
    async apply(
      trx: Transaction<Schema>,
      owner: store.Owner,
      target: { id: string; organizationId: string },
      change: TagChange | undefined,
      creating: boolean,
    ): Promise<void> {
      if (!hasChange(change)) return;
      const current = creating ? [] : ((await store.bindingsOf(trx, owner, [target.id])).get(target.id) ?? []);
      const result = await resolve(trx, target.organizationId, current, change!, creating);
      await store.writeBindings(trx, owner, target.id, result);
      if (owner === 'workspace')
        await store.ensureTags(
          trx,
          target.organizationId,
          result.map((b) => ({ id: newId('tag'), name: b.key })),
          now(),
        );
    },

    workspaceFilter: store.workspaceTagFilter,
    projectFilter: store.projectTagFilter,

    // The tag endpoints.

    async listWorkspace(target: WorkspaceTarget): Promise<Binding[]> {
      return (await store.bindingsOf(db, 'workspace', [target.workspace.id])).get(target.workspace.id) ?? [];
    },
    async effectiveWorkspace(target: WorkspaceTarget): Promise<EffectiveBinding[]> {
      return (await effectiveOf(db, [target.workspace])).get(target.workspace.id) ?? [];
    },
    async addWorkspaceBindings(target: WorkspaceTarget, bindings: readonly BindingInput[]): Promise<Binding[]> {
      authorize(target, 'manage-workspace-tags');
      return addBindings('workspace', target.workspace.id, target.workspace.organizationId, bindings);
    },

    /** `GET /workspaces/:id/relationships/tags`: the workspace's keys as flat tags. */
    async listFlatTags(target: WorkspaceTarget, search: string | undefined, page: Page) {
      return store.listWorkspaceTags(db, { workspaceId: target.workspace.id, organizationId: target.workspace.organizationId, search }, page);
    },

    /** `POST /workspaces/:id/relationships/tags`: adds key-only tags (keys already bound keep their value). */
    async addFlatTags(target: WorkspaceTarget, refs: Array<{ id?: string; name?: string }>): Promise<void> {
      authorize(target, 'manage-workspace-tags');
      const w = target.workspace;
      // The body is the relationship itself: its data is the top-level array.
      await rewrite(
        'workspace',
        [w.id],
        (current, _id, trx) => resolve(trx, w.organizationId, current, { refs }, true, { list: '/data', item: (i) => `/data/${i}` }),
        w.organizationId,
      );
    },

    /** `DELETE /workspaces/:id/relationships/tags`: removes the keys named (by name or id); absent ones are ignored. */
    async removeFlatTags(target: WorkspaceTarget, refs: Array<{ id?: string; name?: string }>): Promise<void> {
      authorize(target, 'manage-workspace-tags');
      const w = target.workspace;
      const ids = refs.filter((r) => r.name === undefined && r.id !== undefined).map((r) => r.id!);
      const byId = await store.tagsByIds(db, w.organizationId, ids);
      const names = new Set([...refs.flatMap((r) => (r.name !== undefined ? [r.name] : [])), ...byId.map((t) => t.name)]);
      await rewrite('workspace', [w.id], async (current) => withoutKeys(current, names));
    },

    // The organization's tags (the organization-tags domain authorizes the caller first).

    /** The tag with this id (any organization's; the caller decides who may know of it). */
    findTag: async (id: string) => (hasPrefix(id, 'tag') ? store.findTagById(db, id) : undefined),
    /** The organization's tags among `ids` (one query). */
    tagsOf: (organizationId: string, ids: readonly string[]) => store.tagsByIds(db, organizationId, ids),
    /** The organization's workspaces that carry any of these tags (one query). */
    holdersOf: (organizationId: string, tags: readonly FlatTag[]) =>
      store.workspacesHolding(
        db,
        organizationId,
        tags.map((t) => t.name),
      ),
    listOrganization: (organizationId: string, filter: { search?: string; excludeWorkspaceId?: string }, page: Page) =>
      store.listOrganizationTags(db, { organizationId, ...filter }, page),

    /**
     * Adds the tag, key-only, to each workspace (one already binding its key keeps its value),
     * in one transaction; 422 at `/data/<i>` (its first place in the body, which may name it
     * more than once) for a workspace that would pass the limit.
     */
    async addToWorkspaces(tag: FlatTag & { organizationId: string }, workspaceIds: readonly string[]): Promise<void> {
      const at = (id: string) => `/data/${workspaceIds.indexOf(id)}`;
      await guarded(
        rewrite(
          'workspace',
          [...new Set(workspaceIds)],
          (current, id, trx) => resolve(trx, tag.organizationId, current, { refs: [{ name: tag.name }] }, true, { list: at(id), item: () => at(id) }),
          tag.organizationId,
        ),
        // A workspace deleted since the caller was checked.
        { foreignKey: () => errors.invalidAttribute('/data', 'Workspace not found') },
      );
    },

    /**
     * Takes the tags off `holders` (the workspaces found to carry them) and forgets their ids, in
     * one transaction. A workspace that took one of the tags meanwhile was not checked: 409.
     */
    async deleteFromOrganization(organizationId: string, tags: readonly FlatTag[], holders: readonly string[]): Promise<void> {
      const names = new Set(tags.map((t) => t.name));
      await guarded(
        rewrite(
          'workspace',
          holders,
          async (current) => withoutKeys(current, names),
          undefined,
          async (trx) => {
            if ((await store.workspacesHolding(trx, organizationId, [...names])).length > 0) throw changedMeanwhile();
            await store.deleteTags(
              trx,
              organizationId,
              tags.map((t) => t.id),
            );
          },
        ),
        { foreignKey: changedMeanwhile },
      );
    },

    projectTarget,
    async listProject(caller: Caller, projectId: string): Promise<Binding[]> {
      const { project } = await projectTarget(caller, projectId, false);
      return (await store.bindingsOf(db, 'project', [project.id])).get(project.id) ?? [];
    },
    async addProjectBindings(caller: Caller, projectId: string, bindings: readonly BindingInput[]): Promise<Binding[]> {
      const { project } = await projectTarget(caller, projectId, true);
      return addBindings('project', project.id, undefined, bindings);
    },
  };
}

export type TagsService = ReturnType<typeof createTagsService>;
