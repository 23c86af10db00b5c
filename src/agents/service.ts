import type { AgentPoolsService } from '../agent-pools/service.ts';
import type { Caller } from '../auth/caller.ts';
import type { AgentPrincipal } from '../auth/principal.ts';
import { guarded } from '../db/constraints.ts';
import type { Database } from '../db/index.ts';
import { newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { Sort } from '../jsonapi/query.ts';
import { isoAt, now } from '../time.ts';
import * as store from './store.ts';
import type { Agent, StoredAgentStatus } from './store.ts';

export type { Agent, StoredAgentStatus };

/** An idle or busy agent silent for this long is reported as `unknown`. */
export const AGENT_SILENCE_MS = 2 * 60_000;

export type AgentStatus = StoredAgentStatus | 'unknown';

export interface AgentView {
  /** The agent's row as last written. */
  agent: Agent;
  /** The status as reported to clients, computed when read. */
  status: AgentStatus;
  /** Its last ping: the row's, or a later one that needed no write (see `heartbeat`). */
  lastPingAt: string;
}

/**
 * `exited` and `errored` are final reports and stay as they are: an agent that said it stopped
 * is not expected to ping again, and calling it `unknown` would count it in `agent-count`.
 */
export function effectiveStatus(agent: Agent, at: number): AgentStatus {
  if (store.RUNNING.includes(agent.status) && Date.parse(agent.lastPingAt) <= at - AGENT_SILENCE_MS) return 'unknown';
  return agent.status;
}

const viewOf = (agent: Agent, at = Date.now()): AgentView => ({ agent, status: effectiveStatus(agent, at), lastPingAt: agent.lastPingAt });

/**
 * A running agent repeating the status it last reported (from the same address) has its row
 * written at most this often: agents ping every few seconds, and nothing reads `last-ping-at` more
 * finely than the 2-minute silence rule (AGENT_SILENCE_MS), which this stays well inside, on
 * every instance (each writes at least this often for the pings it receives).
 */
export const HEARTBEAT_WRITE_INTERVAL_MS = 30_000;
const REMEMBERED_AGENTS = 10_000;

export function createAgentsService(deps: { database: Database; pools: Pick<AgentPoolsService, 'find' | 'countAgentsWith'> }) {
  const db = deps.database.db;

  /** An agent the caller may see (through its pool); 404 otherwise, 403 when it may see but not `manage`. */
  async function find(caller: Caller, id: string, manage: boolean): Promise<Agent> {
    const agent = await store.findAgentById(db, id);
    if (!agent) throw errors.notFound();
    await deps.pools.find(caller, agent.agentPoolId, manage ? 'manage-agent-pools' : 'read-agent-pools');
    return agent;
  }

  deps.pools.countAgentsWith((poolIds) => store.runningCountsByPool(db, poolIds));

  /** A heartbeat that writes the agent's row. */
  async function record(principal: AgentPrincipal, input: { id: string; status: StoredAgentStatus; ipAddress: string | null }, at: number): Promise<AgentView> {
    const agent = await store.recordHeartbeat(db, {
      id: input.id,
      status: input.status,
      ipAddress: input.ipAddress,
      agentPoolId: principal.agentPoolId,
      at: new Date(at).toISOString(),
    });
    if (!agent) {
      written.delete(input.id);
      throw errors.notFound();
    }
    remember(agent, at);
    return viewOf(agent, at);
  }

  // agent id → its row as this process last wrote it, and when. Only running statuses: a final
  // report (exited, errored) is always written, and an agent that may be deleted is never answered
  // from here (only exited, errored or silent agents can be deleted, and an entry lives less than
  // the silence).
  const written = new Map<string, { agent: Agent; at: number }>();
  const remember = (agent: Agent, at: number) => {
    written.delete(agent.id);
    if (!store.RUNNING.includes(agent.status)) return;
    if (written.size >= REMEMBERED_AGENTS) written.delete(written.keys().next().value!);
    written.set(agent.id, { agent, at });
  };

  return {
    /** `POST /api/agent/register`: a new agent in the token's pool, idle from now on. */
    async register(principal: AgentPrincipal, input: { name: string | null; ipAddress: string | null }): Promise<AgentView> {
      const at = now();
      const agent: Agent = {
        id: newId('agent'),
        agentPoolId: principal.agentPoolId,
        name: input.name,
        status: 'idle',
        ipAddress: input.ipAddress,
        lastPingAt: at,
        createdAt: at,
      };
      // The pool was deleted after the token was checked: the token no longer exists either.
      await guarded(store.insertAgent(db, agent), { foreignKey: () => errors.unauthorized() });
      return viewOf(agent);
    },

    /**
     * `POST /api/agent/status`: an agent of the token's pool reports; any other agent id is 404.
     * Nearly every ping repeats what was written lately and needs no write: that answer comes at
     * once, not as a promise (the heartbeat is the most frequent request an installation serves).
     */
    heartbeat(principal: AgentPrincipal, input: { id: string; status: StoredAgentStatus; ipAddress: string | null }): AgentView | Promise<AgentView> {
      const at = Date.now();
      const last = written.get(input.id);
      if (
        last &&
        at - last.at < HEARTBEAT_WRITE_INTERVAL_MS &&
        last.agent.agentPoolId === principal.agentPoolId &&
        last.agent.status === input.status &&
        last.agent.ipAddress === input.ipAddress
      ) {
        // Nothing to write: the agent is told of this ping; the row keeps the last written one
        // (and stays the same object, which lets the serializer reuse its text).
        // Its status is the one it reports (running, and heard from just now: not silent).
        return { agent: last.agent, status: input.status, lastPingAt: isoAt(at) };
      }
      return record(principal, input, at);
    },

    /** Whether `id` is a registered agent of the token's pool (a job claim names one). */
    async isInPool(principal: AgentPrincipal, id: string): Promise<boolean> {
      const agent = await store.findAgentById(db, id);
      return agent !== undefined && agent.agentPoolId === principal.agentPoolId;
    },

    async list(caller: Caller, poolId: string, sort: Sort<'created-at'> | undefined, page: Page) {
      const { pool } = await deps.pools.find(caller, poolId);
      const { items, total } = await store.listAgents(db, pool.id, { descending: sort?.descending ?? false }, page);
      const at = Date.now();
      return { items: items.map((a) => viewOf(a, at)), total };
    },

    show: async (caller: Caller, id: string): Promise<AgentView> => viewOf(await find(caller, id, false)),

    /** Only an agent that is not running may be deleted; a running one answers 412. */
    async destroy(caller: Caller, id: string): Promise<void> {
      const agent = await find(caller, id, true);
      const silentBefore = new Date(Date.now() - AGENT_SILENCE_MS).toISOString();
      if (await store.deleteUnlessRunning(db, agent.id, silentBefore)) {
        written.delete(agent.id);
        return;
      }
      // Not deleted: either it is running, or someone else deleted it in the meantime.
      if (await store.findAgentById(db, agent.id))
        throw errors.preconditionFailed('The agent is idle or busy; only an exited, errored or unknown agent can be deleted');
      throw errors.notFound();
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
