import { Caller } from '../auth/caller.ts';
import { authorize, can } from '../auth/authorize.ts';
import type { Authenticator } from '../auth/plugin.ts';
import type { AgentPrincipal, Principal } from '../auth/principal.ts';
import { actingUserId } from '../auth/principal.ts';
import { digestSecret, newTokenSecret } from '../auth/secrets.ts';
import { teamFilter } from '../auth/teams.ts';
import { GenerationCache } from '../db/changes.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import type { TokenKind } from '../db/schema.ts';
import { newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Window } from '../db/list.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import { now } from '../time.ts';
import { checkAttributes, Timestamp, utcTimestamp } from '../values.ts';
import type { UsersService } from '../users/service.ts';
import type { TeamsService } from '../teams/service.ts';
import { withAccess, emptyAccess } from '../grants.ts';
import * as store from './store.ts';
import type { TeamTokenSortField, Token } from './store.ts';

export type { Token };

/** `last-used-at` is written at most this often per token, so the hot path rarely writes. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * The most tokens one team holds, its legacy token included. TFE has one legacy token per team
 * plus named ones; each is a way in to revoke when a team's access changes, so they stay few.
 */
export const MAX_TEAM_TOKENS = 20;
const SECRET_SHAPE = /^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/;

/**
 * What a presented secret is looked up by: its digest, computed once per request, at the edge
 * (auth/plugin.ts); null for text that cannot be a token, which costs not even a query.
 */
const tokenDigest = (secret: string): string | null => (SECRET_SHAPE.test(secret) ? digestSecret(secret) : null);

/** A freshly created token and its secret, which exists only in this one response. */
export interface IssuedToken {
  token: Token;
  secret: string;
}

/**
 * Who may read or destroy a token of one kind through `/authentication-tokens/:id`. Each kind's
 * owning domain registers its rule (agent tokens: the agent pools domain).
 */
export type TokenAccessRule = (caller: Caller, token: Token) => Promise<boolean>;

/** An organization's two token slots: its API token, and the audit-trail token beside it. */
export type OrganizationTokenKind = Extract<TokenKind, 'organization' | 'audit-trail'>;

/**
 * The expiry as stored and echoed (UTC, milliseconds: the same instant to the second and below);
 * none given, none at all: such a token never expires.
 */
function checkExpiry(expiredAt: string | null | undefined): string | null {
  if (expiredAt === undefined || expiredAt === null) return null;
  checkAttributes({ 'expired-at': [Timestamp('Expired at'), expiredAt] });
  const at = utcTimestamp(expiredAt)!;
  if (Date.parse(at) <= Date.now()) throw errors.invalidAttribute('/data/attributes/expired-at', 'Expired at must be in the future');
  return at;
}

type AuthRow = NonNullable<Awaited<ReturnType<typeof store.findForAuthentication>>>;

/** A token as authentication sees it: who it stands for, built once from its row. */
interface Authenticated {
  tokenId: string;
  kind: TokenKind;
  /** Milliseconds since the epoch, or null: never expires. */
  expiresAt: number | null;
  /** Milliseconds since the epoch; 0 when never used. */
  lastUsedAt: number;
  /** What a user, organization or team token is under /api/v2 (null for other kinds). */
  principal: Principal | null;
  /** What an agent token is at the agent endpoints (null for other kinds). */
  agent: AgentPrincipal | null;
}

/** Of a kind the surface accepts, and not expired at `at`. */
const usable = (entry: Authenticated, accept: readonly TokenKind[], at: number) =>
  accept.includes(entry.kind) && (entry.expiresAt === null || entry.expiresAt > at);

const API_KINDS: readonly TokenKind[] = ['user', 'organization', 'team'];
const AGENT_KINDS: readonly TokenKind[] = ['agent'];

function authenticated(row: AuthRow | undefined): Authenticated | undefined {
  if (!row) return undefined;
  return {
    tokenId: row.id,
    kind: row.kind,
    expiresAt: row.expired_at ? Date.parse(row.expired_at) : null,
    lastUsedAt: row.last_used_at ? Date.parse(row.last_used_at) : 0,
    principal: principalOf(row),
    agent:
      row.kind === 'agent' && row.agent_pool_id && row.organization_id
        ? Object.freeze({ kind: 'agent', tokenId: row.id, agentPoolId: row.agent_pool_id, organizationId: row.organization_id })
        : null,
  };
}

/** Shared by every request the token makes until the cache entry goes: frozen. */
function principalOf(row: AuthRow): Principal | null {
  if (row.kind === 'user' && row.user_id && row.username && !row.is_service_account) {
    return Object.freeze({
      kind: 'user',
      tokenId: row.id,
      user: Object.freeze({ id: row.user_id, username: row.username, isSiteAdmin: Boolean(row.is_site_admin), isServiceAccount: false }),
      memberOf: new Set(row.member_of ? row.member_of.split(',') : []),
    });
  }
  if (row.kind === 'organization' && row.organization_id && row.organization_name && row.service_user_id) {
    return Object.freeze({
      kind: 'organization',
      tokenId: row.id,
      organizationId: row.organization_id,
      organizationName: row.organization_name,
      serviceUserId: row.service_user_id,
    });
  }
  if (row.kind === 'team' && row.team_id && row.organization_id && row.organization_name && row.team_organization_access) {
    return Object.freeze({
      kind: 'team',
      tokenId: row.id,
      organizationId: row.organization_id,
      organizationName: row.organization_name,
      team: Object.freeze({
        id: row.team_id,
        isOwners: Boolean(row.team_is_owners),
        access: Object.freeze(withAccess(emptyAccess(), JSON.parse(row.team_organization_access) as Record<string, unknown>)),
      }),
    });
  }
  return null;
}

export function createTokensService(deps: { database: Database; users: UsersService; organizationLookup: OrganizationLookup; teams: TeamsService }) {
  const db = deps.database.db;
  const { organizationLookup } = deps;
  const rules = new Map<TokenKind, TokenAccessRule>();
  // Digest → who the token stands for, until anything authentication reads changes
  // (db/changes.ts): a revoked token, a deleted membership, a renamed user drop every entry.
  // Unknown secrets are not cached. The principal is built once per entry and shared by the
  // requests it serves (frozen); `lastUsedAt` is kept current in the entry, so that the write
  // stays once a minute.
  const byDigest = new GenerationCache<Authenticated | undefined>(deps.database.changes, 10_000);

  rules.set('user', async (caller, token) => token.userId !== null && can({ principal: caller.principal, userId: token.userId }, 'manage-user-tokens'));
  const organizationRule: TokenAccessRule = async (caller, token) => {
    const found = token.organizationId ? await organizationLookup.standingIn(caller, token.organizationId) : undefined;
    return found !== undefined && can(found, 'manage-organization-token');
  };
  rules.set('organization', organizationRule);
  rules.set('audit-trail', organizationRule);
  rules.set('team', async (caller, token) => token.teamId !== null && (await deps.teams.mayManageToken(caller, token.teamId)));

  async function issue(token: Omit<Token, 'id' | 'createdAt' | 'lastUsedAt' | 'teamId'> & { teamId?: string }, q: Queryable = db): Promise<IssuedToken> {
    const secret = newTokenSecret();
    const full: Token = { ...token, teamId: token.teamId ?? null, id: newId('at'), createdAt: now(), lastUsedAt: null };
    await store.insertToken(q, full, digestSecret(secret));
    return { token: full, secret };
  }

  /**
   * A new token of a team the caller may issue one for (teams/service.ts: `findForToken`): the
   * legacy one when `description` is null. It acts as the team, attributed to the user issuing it
   * (to no user when a team token does).
   */
  async function teamToken(caller: Caller, teamId: string, description: string | null, expiredAt: string | null | undefined) {
    const team = await deps.teams.findForToken(caller, teamId, true);
    return {
      kind: 'team' as const,
      description,
      userId: null,
      organizationId: team.organizationId,
      agentPoolId: null,
      teamId: team.id,
      createdByUserId: actingUserId(caller.principal),
      expiredAt: checkExpiry(expiredAt),
    };
  }

  async function accessible(caller: Caller, id: string): Promise<Token> {
    const token = await store.findTokenById(db, id);
    const rule = token && rules.get(token.kind);
    if (!token || !rule || !(await rule(caller, token))) throw errors.notFound();
    return token;
  }

  /**
   * The token behind a digest, if it is of an accepted kind and has not expired; records its
   * use. A token refused here (an agent token under /api/v2, say) was not used, so its
   * `last-used-at` stays as it was.
   */
  async function usableToken(digest: string, accept: readonly TokenKind[]): Promise<Authenticated | null> {
    const entry = await byDigest.get(digest, async () => authenticated(await store.findForAuthentication(db, digest)));
    const at = Date.now();
    if (!entry || !usable(entry, accept, at)) return null;
    if (entry.lastUsedAt <= at - LAST_USED_RESOLUTION_MS) {
      // Set first: concurrent requests with the same token then write it once, not each.
      entry.lastUsedAt = at;
      await store.touchLastUsed(db, entry.tokenId, new Date(at).toISOString());
    }
    return entry;
  }

  /**
   * `usableToken`'s answer when the cache alone gives it and nothing needs writing: the common
   * case, answered without a promise (auth/plugin.ts). Undefined: ask `usableToken`, which also
   * refuses what must be refused.
   */
  function readyToken(digest: string, accept: readonly TokenKind[]): Authenticated | undefined {
    const entry = byDigest.peek(digest);
    const at = Date.now();
    return entry && usable(entry, accept, at) && entry.lastUsedAt > at - LAST_USED_RESOLUTION_MS ? entry : undefined;
  }

  return {
    /**
     * Bearer secret → principal for the /api/v2 surface, or null (→ 401). Only user and
     * organization tokens are accepted there; agent tokens authenticate agents elsewhere.
     */
    authenticate: {
      digest: tokenDigest,
      now: (digest: string): Principal | undefined => readyToken(digest, API_KINDS)?.principal ?? undefined,
      later: async (digest: string): Promise<Principal | null> => (await usableToken(digest, API_KINDS))?.principal ?? null,
    } satisfies Authenticator<Principal>,

    /** Bearer secret → the agent pool it stands for, for the agent endpoints; null (→ 401) otherwise. */
    authenticateAgent: {
      digest: tokenDigest,
      now: (digest: string): AgentPrincipal | undefined => readyToken(digest, AGENT_KINDS)?.agent ?? undefined,
      later: async (digest: string): Promise<AgentPrincipal | null> => (await usableToken(digest, AGENT_KINDS))?.agent ?? null,
    } satisfies Authenticator<AgentPrincipal>,

    /**
     * The caller a token stands for now, read afresh (no cache): for work begun with the token and
     * finished without it (a state upload URL), which must not outlive the token or its rights.
     * Null: the token is gone, expired, or of a kind that is no caller under /api/v2.
     */
    async callerOfToken(tokenId: string): Promise<Caller | null> {
      const entry = authenticated(await store.findForAuthentication(db, tokenId, 'id'));
      if (!entry || !entry.principal || !usable(entry, API_KINDS, Date.now())) return null;
      return new Caller(entry.principal, deps.teams.grants);
    },

    /** Lets a domain decide who may read and destroy tokens of its kind. */
    registerAccessRule(kind: TokenKind, rule: TokenAccessRule) {
      rules.set(kind, rule);
    },

    /** For domains that issue tokens of their own kind (agent tokens); pass a transaction as `q`. */
    issue,

    /** A pool's agent tokens; the agent pools domain has already checked the caller. */
    listAgentTokens: (agentPoolId: string, order: { descending: boolean }, page: Window) => store.listAgentTokens(db, agentPoolId, order, page),

    /** For the CLI: a token for a user, no caller involved. */
    async issueUserToken(userId: string, description: string | null): Promise<IssuedToken> {
      return issue({ kind: 'user', description, userId, organizationId: null, agentPoolId: null, createdByUserId: userId, expiredAt: null });
    },

    /** Ends a token another domain issued (a replayed `terraform login` code's), no caller involved. */
    revokeIssued: (id: string) => store.deleteToken(db, id),

    async createUserToken(caller: Caller, userId: string, input: { description?: string | null; expiredAt?: string | null }) {
      // A user manages only their own tokens; to anyone else the user's tokens do not exist.
      authorize({ principal: caller.principal, userId }, 'manage-user-tokens');
      const expiredAt = checkExpiry(input.expiredAt);
      return issue({
        kind: 'user',
        description: input.description ?? null,
        userId,
        organizationId: null,
        agentPoolId: null,
        createdByUserId: userId,
        expiredAt,
      });
    },

    async listUserTokens(caller: Caller, userId: string, page: Window | null) {
      if (!(await deps.users.findById(userId))) throw errors.notFound();
      // TFE answers another user's list with 200 and no items, not 404.
      if (!can({ principal: caller.principal, userId }, 'manage-user-tokens')) return { items: [] as Token[], total: 0 };
      return store.listUserTokens(db, userId, page);
    },

    show: accessible,

    async destroy(caller: Caller, id: string): Promise<void> {
      const token = await accessible(caller, id);
      await store.deleteToken(db, token.id);
    },

    /** Creating replaces the organization's token of that kind: the old secret stops working at once. */
    async createOrganizationToken(caller: Caller, organizationName: string, kind: OrganizationTokenKind, input: { expiredAt?: string | null }) {
      const { org } = await organizationLookup.find(caller, organizationName, 'manage-organization-token');
      const expiredAt = checkExpiry(input.expiredAt);
      return guarded(
        deps.database.transaction(async (trx) => {
          await store.deleteOrganizationToken(trx, org.id, kind);
          return issue(
            { kind, description: null, userId: null, organizationId: org.id, agentPoolId: null, createdByUserId: actingUserId(caller.principal), expiredAt },
            trx,
          );
        }),
        // The schema allows one token of each kind; a simultaneous create lost the race.
        { unique: () => errors.conflict('Another organization token was created at the same time; try again') },
      );
    },

    /**
     * A team's token (TFE's single "legacy" team token): creating replaces the previous one, whose
     * secret stops working at once. It is attributed to no user when a team token creates it.
     */
    async createTeamToken(caller: Caller, teamId: string, input: { expiredAt?: string | null }): Promise<IssuedToken> {
      const token = await teamToken(caller, teamId, null, input.expiredAt);
      return guarded(
        deps.database.transaction(async (trx) => {
          await store.deleteTeamToken(trx, token.teamId);
          return issue(token, trx);
        }),
        {
          unique: () => errors.conflict('Another token for this team was created at the same time; try again'),
          // The team was deleted a moment ago.
          foreignKey: () => errors.notFound(),
        },
      );
    },

    /**
     * One of a team's tokens beside the others (TFE's multiple team tokens): it replaces nothing,
     * and its description is unique within the team (the schema enforces it, so two simultaneous
     * creates cannot both have it). The legacy token is the one without a description.
     */
    async createDescribedTeamToken(caller: Caller, teamId: string, input: { description: string; expiredAt?: string | null }): Promise<IssuedToken> {
      const token = await teamToken(caller, teamId, input.description, input.expiredAt);
      const write = deps.database.transaction(async (trx) => {
        // Counted and inserted under the team's row lock (PostgreSQL; SQLite runs one writer at a time).
        await deps.teams.hold(trx, token.teamId);
        if ((await store.countTeamTokens(trx, token.teamId)) >= MAX_TEAM_TOKENS) {
          throw errors.conflict(`A team holds at most ${MAX_TEAM_TOKENS} tokens; delete one before creating another`);
        }
        return issue(token, trx);
      });
      return guarded(write, {
        unique: () => errors.validationFailed('description', 'Description has already been taken'),
        // The team was deleted a moment ago.
        foreignKey: () => errors.notFound(),
      });
    },

    /**
     * The organization's team tokens, of the teams the caller sees, for those who manage teams
     * (who may issue, show and revoke each of them).
     */
    async listTeamTokens(
      caller: Caller,
      organizationName: string,
      filter: { search?: string; sort: { field: TeamTokenSortField; descending: boolean } },
      page: Window,
    ) {
      const { org, standing } = await organizationLookup.find(caller, organizationName, 'list-team-tokens');
      return store.listTeamTokens(db, { organizationId: org.id, search: filter.search, visible: teamFilter(standing) }, filter.sort, page);
    },

    async showTeamToken(caller: Caller, teamId: string): Promise<Token> {
      const team = await deps.teams.findForToken(caller, teamId, false);
      const token = await store.findTeamToken(db, team.id);
      if (!token) throw errors.notFound();
      return token;
    },

    async deleteTeamToken(caller: Caller, teamId: string): Promise<void> {
      const team = await deps.teams.findForToken(caller, teamId, false);
      if ((await store.deleteTeamToken(db, team.id)) === 0) throw errors.notFound();
    },

    async showOrganizationToken(caller: Caller, organizationName: string, kind: OrganizationTokenKind): Promise<Token> {
      const { org } = await organizationLookup.find(caller, organizationName, 'manage-organization-token');
      const token = await store.findOrganizationToken(db, org.id, kind);
      if (!token) throw errors.notFound();
      return token;
    },

    async deleteOrganizationToken(caller: Caller, organizationName: string, kind: OrganizationTokenKind): Promise<void> {
      const { org } = await organizationLookup.find(caller, organizationName, 'manage-organization-token');
      if ((await store.deleteOrganizationToken(db, org.id, kind)) === 0) throw errors.notFound();
    },
  };
}

export type TokensService = ReturnType<typeof createTokensService>;
