import type { Database } from '../db/index.ts';
import { isUniqueViolation } from '../db/index.ts';
import type { Caller } from '../auth/caller.ts';
import { actingUserId } from '../auth/principal.ts';
import { ApiError, errors } from '../jsonapi/errors.ts';
import { newId } from '../jsonapi/ids.ts';
import { now } from '../jsonapi/time.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { Sort } from '../jsonapi/query.ts';
import type { Deny, OrganizationLookup } from '../organizations/service.ts';
import type { IssuedToken, Token, TokensService } from '../tokens/service.ts';
import * as store from './store.ts';
import type { AgentPool, PoolSortField } from './store.ts';

export type { AgentPool, PoolSortField };

const POOL_NAME = /^[A-Za-z0-9_-]+$/;
const nameTaken = () => errors.invalidAttribute('/data/attributes/name', 'Name has already been taken');

export interface AgentPoolView {
  pool: AgentPool;
  organizationName: string;
  /** Agents that are idle, busy or unknown (not exited or errored). */
  agentCount: number;
}

/** pool id → number of agents that count towards `agent-count`, for a page of pools at once. */
export type AgentCounter = (poolIds: readonly string[]) => Promise<Map<string, number>>;

type PoolAction = 'read-agent-pools' | 'manage-agent-pools';

export function createAgentPoolsService(deps: {
  database: Database;
  lookup: OrganizationLookup;
  tokens: TokensService;
  agentCounts: AgentCounter;
}) {
  const { database, lookup, tokens } = deps;
  const db = database.db;

  /**
   * A pool the caller may see; 404 when absent or invisible, and `deny` (403 unless told) when
   * visible but `action` is not allowed.
   */
  async function visiblePool(caller: Caller, id: string, action: PoolAction = 'read-agent-pools', deny: Deny = 403) {
    const pool = await store.findPoolById(db, id);
    if (!pool) throw errors.notFound();
    const { org } = await lookup.resolveById(caller, pool.organizationId, action, deny);
    return { pool, organizationName: org.name };
  }

  async function view(pool: AgentPool, organizationName: string): Promise<AgentPoolView> {
    const counts = await deps.agentCounts([pool.id]);
    return { pool, organizationName, agentCount: counts.get(pool.id) ?? 0 };
  }

  function checkName(name: string) {
    if (!POOL_NAME.test(name)) {
      throw errors.invalidAttribute('/data/attributes/name', 'Name may only contain letters, numbers, "-" and "_"');
    }
  }

  // Agent tokens are shown and destroyed through the shared /authentication-tokens/:id routes;
  // only those who manage the organization's pools may, everyone else is told it does not exist.
  tokens.registerAccessRule('agent', async (caller: Caller, token: Token) => {
    if (!token.organizationId) return false;
    try {
      await lookup.resolveById(caller, token.organizationId, 'manage-agent-pools', 404);
      return true;
    } catch (e) {
      if (e instanceof ApiError) return false;
      throw e;
    }
  });

  return {
    visiblePool,

    async list(caller: Caller, organizationName: string, filter: { search?: string; sort?: Sort<PoolSortField> }, page: Page) {
      const { org } = await lookup.resolve(caller, organizationName, 'read-agent-pools');
      const { items, total } = await store.listPools(db, { organizationId: org.id, ...filter }, page);
      const counts = await deps.agentCounts(items.map((p) => p.id));
      return { items: items.map((pool) => ({ pool, organizationName: org.name, agentCount: counts.get(pool.id) ?? 0 })), total };
    },

    async create(caller: Caller, organizationName: string, input: { name: string; organizationScoped?: boolean }): Promise<AgentPoolView> {
      const { org } = await lookup.resolve(caller, organizationName, 'manage-agent-pools');
      checkName(input.name);
      const pool: AgentPool = {
        id: newId('apool'),
        organizationId: org.id,
        name: input.name,
        organizationScoped: input.organizationScoped ?? true,
        createdAt: now(),
      };
      try {
        await store.insertPool(db, pool);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      return { pool, organizationName: org.name, agentCount: 0 };
    },

    async show(caller: Caller, id: string): Promise<AgentPoolView> {
      const { pool, organizationName } = await visiblePool(caller, id);
      return view(pool, organizationName);
    },

    async update(caller: Caller, id: string, input: { name?: string; organizationScoped?: boolean }): Promise<AgentPoolView> {
      const { pool, organizationName } = await visiblePool(caller, id, 'manage-agent-pools');
      if (input.name !== undefined) checkName(input.name);
      try {
        await store.updatePool(db, pool.id, input);
      } catch (e) {
        if (isUniqueViolation(e)) throw nameTaken();
        throw e;
      }
      const updated = await store.findPoolById(db, pool.id);
      if (!updated) throw errors.notFound();
      return view(updated, organizationName);
    },

    /** Its agents and tokens go with it: the tokens stop authenticating at once. */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { pool } = await visiblePool(caller, id, 'manage-agent-pools');
      await store.deletePool(db, pool.id);
    },

    // Token lists and creation are for those who manage pools; to other members a pool's
    // tokens are as invisible as in TFE, so they get 404 rather than 403.
    async listTokens(caller: Caller, id: string, sort: Sort<'created-at'> | undefined, page: Page) {
      const { pool } = await visiblePool(caller, id, 'manage-agent-pools', 404);
      return tokens.listAgentTokens(pool.id, { descending: sort?.descending ?? false }, page);
    },

    async createToken(caller: Caller, id: string, input: { description: string }): Promise<IssuedToken> {
      const { pool } = await visiblePool(caller, id, 'manage-agent-pools', 404);
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
