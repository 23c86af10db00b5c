import type { Caller } from '../auth/caller.ts';
import { can } from '../auth/authorize.ts';
import { actingUserId } from '../auth/principal.ts';
import { rowsByIdUntilChange } from '../db/changes.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { newId } from '../ids.ts';
import { errors, unknownIds } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { Sort } from '../jsonapi/query.ts';
import type { OrganizationAction, OrganizationLookup } from '../organizations/lookup.ts';
import { now } from '../time.ts';
import type { IssuedToken, Token, TokensService } from '../tokens/service.ts';
import { checkAttributes, Name } from '../values.ts';
import type { PoolUsability, WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { AgentPool, PoolSortField } from './store.ts';

export type { AgentPool, PoolSortField };

const ALLOWED_WORKSPACES = '/data/relationships/allowed-workspaces';

export interface AgentPoolInput {
  name?: string;
  organizationScoped?: boolean;
  /** Replaces the allowed workspaces ([] clears them); undefined leaves them as they are. */
  allowedWorkspaceIds?: readonly string[];
}

export interface AgentPoolView {
  pool: AgentPool;
  organizationName: string;
  /** Agents that are idle, busy or unknown (not exited or errored). */
  agentCount: number;
  allowedWorkspaceIds: string[];
}

/** pool id → number of agents that count towards `agent-count`, for a page of pools at once. */
export type AgentCounter = (poolIds: readonly string[]) => Promise<Map<string, number>>;

export type PoolAction = Extract<OrganizationAction, 'read-agent-pools' | 'manage-agent-pools' | 'manage-agent-tokens'>;

export function createAgentPoolsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  tokens: TokensService;
  workspaces: Pick<WorkspacesService, 'idsInOrganization' | 'readableIdByName'>;
}) {
  const { database, organizationLookup, tokens } = deps;
  const db = database.db;
  // The agents domain registers how to count a pool's agents (it owns them, and depends on us).
  let agentCounts: AgentCounter = async () => new Map();

  // Pool rows by id, until any pool (or anything else authentication reads) changes: every
  // request on a pool or its tokens starts here.
  const poolById = rowsByIdUntilChange(database.changes, (id) => store.findPoolById(db, id));

  /** A pool the caller may perform `action` on; 404 when it may not see it, 403 or 404 (as auth/ says) otherwise. */
  async function find(caller: Caller, id: string, action: PoolAction = 'read-agent-pools') {
    const pool = await poolById(id);
    if (!pool) throw errors.notFound();
    const { org } = await organizationLookup.findById(caller, pool.organizationId, action);
    return { pool, organizationName: org.name };
  }

  /** Views of a page of pools: two queries (agent counts, allowed workspaces) however many. */
  async function views(pools: readonly AgentPool[], organizationName: string): Promise<AgentPoolView[]> {
    const ids = pools.map((p) => p.id);
    const counts = await agentCounts(ids);
    const allowed = await store.allowedWorkspaces.of(db, ids);
    return pools.map((pool) => ({
      pool,
      organizationName,
      agentCount: counts.get(pool.id) ?? 0,
      allowedWorkspaceIds: allowed.get(pool.id) ?? [],
    }));
  }

  /**
   * Inside the write's transaction: every id must be a workspace of the pool's organization (each
   * one that is not gets its own 422), then the list becomes exactly these workspaces.
   */
  async function setAllowedWorkspaces(trx: Queryable, pool: AgentPool, ids: readonly string[], at: string): Promise<void> {
    const unique = [...new Set(ids)];
    const known = await deps.workspaces.idsInOrganization(pool.organizationId, unique, trx);
    const problems = unknownIds(
      ids,
      (id) => known.has(id),
      'Workspace',
      (i) => `${ALLOWED_WORKSPACES}/data/${i}/id`,
    );
    if (problems.length) throw errors.invalid(problems);
    // A workspace deleted between the check and the insert.
    await guarded(store.allowedWorkspaces.replace(trx, pool.id, unique, at), {
      foreignKey: () => errors.invalidAttribute(ALLOWED_WORKSPACES, 'Workspace not found'),
    });
  }

  // Agent tokens are shown and destroyed through the shared /authentication-tokens/:id routes;
  // only those who manage the organization's pools may, everyone else is told it does not exist.
  tokens.registerAccessRule('agent', async (caller: Caller, token: Token) => {
    const found = token.organizationId ? await organizationLookup.standingIn(caller, token.organizationId) : undefined;
    return found !== undefined && can(found, 'manage-agent-tokens');
  });

  return {
    find,

    /** How `agent-count` is counted: registered by the agents domain. */
    /** For domains that name pools (organization and workspace execution): which ids are this organization's pools. */
    idsInOrganization: (q: Queryable, organizationId: string, ids: readonly string[]) => store.poolIdsInOrganization(q, organizationId, ids),

    /** For the workspaces domain: whether a workspace (null: one being created) may run on the organization's pool. */
    async usability(q: Queryable, organizationId: string, poolId: string, workspaceId: string | null): Promise<PoolUsability> {
      const found = await store.poolUsability(q, organizationId, poolId, workspaceId);
      return !found ? 'missing' : found.usable ? 'usable' : 'refused';
    },

    countAgentsWith(counter: AgentCounter): void {
      agentCounts = counter;
    },

    /**
     * `allowedWorkspaceName`: only the pools that workspace may use. A name the caller cannot
     * read is answered as one that does not exist (organization-scoped pools only), so the
     * filter reveals no workspace.
     */
    async list(caller: Caller, organizationName: string, filter: { search?: string; sort?: Sort<PoolSortField>; allowedWorkspaceName?: string }, page: Page) {
      const { org } = await organizationLookup.find(caller, organizationName, 'read-agent-pools');
      const { allowedWorkspaceName, ...rest } = filter;
      const usableBy =
        allowedWorkspaceName === undefined ? undefined : { workspaceId: await deps.workspaces.readableIdByName(caller, org.name, allowedWorkspaceName) };
      const { items, total, matching } = await store.listPools(db, { organizationId: org.id, ...rest, usableBy }, page);
      return { items: await views(items, org.name), total, matching };
    },

    async create(caller: Caller, organizationName: string, input: AgentPoolInput & { name: string }): Promise<AgentPoolView> {
      const { org } = await organizationLookup.find(caller, organizationName, 'manage-agent-pools');
      checkAttributes({ name: [Name, input.name] });
      const pool: AgentPool = {
        id: newId('apool'),
        organizationId: org.id,
        name: input.name,
        organizationScoped: input.organizationScoped ?? true,
        createdAt: now(),
      };
      const allowed = input.allowedWorkspaceIds ?? [];
      // One transaction: a refused workspace leaves no pool behind.
      await guarded(
        database.transaction(async (trx) => {
          await store.insertPool(trx, pool);
          if (allowed.length) await setAllowedWorkspaces(trx, pool, allowed, pool.createdAt);
        }),
        { unique: () => errors.taken('name') },
      );
      const [created] = await views([pool], org.name);
      return created!;
    },

    async show(caller: Caller, id: string): Promise<AgentPoolView> {
      const { pool, organizationName } = await find(caller, id);
      const [shown] = await views([pool], organizationName);
      return shown!;
    },

    /** One transaction under the pool's row lock: concurrent updates of one pool never interleave. */
    async update(caller: Caller, id: string, input: AgentPoolInput): Promise<AgentPoolView> {
      const { pool, organizationName } = await find(caller, id, 'manage-agent-pools');
      checkAttributes({ name: [Name, input.name] });
      await guarded(
        database.transaction(async (trx) => {
          if (!(await store.lockPool(trx, pool.id))) throw errors.notFound();
          await store.updatePool(trx, pool.id, { name: input.name, organizationScoped: input.organizationScoped });
          if (input.allowedWorkspaceIds !== undefined) await setAllowedWorkspaces(trx, pool, input.allowedWorkspaceIds, now());
        }),
        { unique: () => errors.taken('name') },
      );
      const updated = await store.findPoolById(db, pool.id);
      if (!updated) throw errors.notFound();
      const [view] = await views([updated], organizationName);
      return view!;
    },

    /** Its agents, tokens and allowed-workspace list go with it: the tokens stop authenticating at once. */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { pool } = await find(caller, id, 'manage-agent-pools');
      // The schema refuses to delete a pool that workspaces run on or that is the organization's default.
      await guarded(store.deletePool(db, pool.id), {
        foreignKey: () => errors.conflict("The agent pool is in use: it is the organization's default or a workspace's pool. Change those first."),
      });
    },

    // Token lists and creation are for those who manage pools; to other members a pool's
    // tokens are as invisible as in TFE.
    async listTokens(caller: Caller, id: string, sort: Sort<'created-at'> | undefined, page: Page) {
      const { pool } = await find(caller, id, 'manage-agent-tokens');
      return tokens.listAgentTokens(pool.id, { descending: sort?.descending ?? false }, page);
    },

    async createToken(caller: Caller, id: string, input: { description: string }): Promise<IssuedToken> {
      const { pool } = await find(caller, id, 'manage-agent-tokens');
      if (input.description.trim() === '') {
        throw errors.invalidAttribute('/data/attributes/description', 'Description must not be blank');
      }
      const createdByUserId = actingUserId(caller.principal);
      // One transaction: the pool is re-checked (and held, on PostgreSQL) so a concurrent pool
      // delete cannot leave a token behind, and any failure leaves no token at all.
      return database.transaction(async (trx) => {
        if (!(await store.lockPool(trx, pool.id))) throw errors.notFound();
        return tokens.issue(
          {
            kind: 'agent',
            description: input.description,
            userId: null,
            organizationId: pool.organizationId,
            agentPoolId: pool.id,
            createdByUserId,
            expiredAt: null,
          },
          trx,
        );
      });
    },
  };
}

export type AgentPoolsService = ReturnType<typeof createAgentPoolsService>;
