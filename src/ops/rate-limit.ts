// Request budgets as TFE enforces and advertises them: HANGAR_RATE_LIMIT requests per second per
// caller, and a separate budget per client address for requests without a valid token (so a
// client cannot dodge it by inventing tokens). Counting is @fastify/rate-limit's: in memory per
// process, or in Redis (HANGAR_REDIS_URL) so that every instance draws on one budget.
//
// Each budget is a window of one second that opens with the first request counted in it; the
// limit may be spent at once (a burst of up to the whole limit), after which requests get 429
// until the window closes. go-tfe paces itself below the limit it reads from
// X-RateLimit-Limit and waits X-RateLimit-Reset seconds after a 429.
import rateLimitPlugin, { normalizeIP, type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRequire } from 'node:module';
import { Redis } from 'ioredis';
import type { Admission } from '../auth/plugin.ts';
import type { AgentPrincipal, Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import { errors } from '../jsonapi/errors.ts';
import { throttledWarning } from './logging.ts';
import type { Metrics } from './metrics.ts';

const WINDOW_MS = 1000;
/** A Redis that answers slower than this is treated as down: the request is served unlimited. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/** How long start-up waits for Redis before serving without it. */
const REDIS_STARTUP_WAIT_MS = 2000;

type Incr = FastifyRateLimitStore['incr'];
const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  cache: number,
) => { incr: Incr };

/**
 * The plugin's in-memory store, answering each caller with a copy of its count: the store hands
 * out the very object it keeps counting in, and the plugin reads it only after an await, so
 * requests arriving together all read the last one's count and were all refused.
 */
class InMemoryStore implements FastifyRateLimitStore {
  readonly #store = new LocalStore(false, false, 10_000);

  incr(key: string, callback: Parameters<Incr>[1], timeWindow: number, max: number): void {
    this.#store.incr(key, (error, result) => callback(error, result && { current: result.current, ttl: result.ttl }), timeWindow, max);
  }

  child(): FastifyRateLimitStore {
    return new InMemoryStore();
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The budget this request is charged to (`user:…`, `team:…`, `token:…` or `address:…`). */
    rateLimitKey: string;
  }
}

/**
 * The budget a caller draws on, named by ids, never by a secret. A user's tokens share one, as
 * in TFE, and so do a team's: otherwise creating tokens would multiply a caller's budget.
 */
function budgetOf(request: FastifyRequest, who: Principal | AgentPrincipal | null): string {
  if (!who) return `address:${normalizeIP(request.ip)}`;
  if (who.kind === 'user') return `user:${who.user.id}`;
  if (who.kind === 'team') return `team:${who.team.id}`;
  return `token:${who.tokenId}`;
}

export interface RateLimits {
  /** For the authenticating hooks: charge the caller (null: the address), or refuse with 429. */
  admit: Admission | undefined;
  /** onRequest hook for a route that takes no token (ping): charges the client's address. */
  anonymous: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export async function registerRateLimits(app: FastifyInstance, config: Config, metrics: Metrics | null): Promise<RateLimits> {
  const countFailure = (request: FastifyRequest, who: unknown) => {
    if (!who) metrics?.authFailure(request.headers.authorization ? 'invalid' : 'missing');
  };
  if (config.rateLimit === 0) {
    // Off: no headers at all. go-tfe reads a missing X-RateLimit-Limit as "unlimited".
    return {
      admit: metrics ? async (request, _reply, who) => countFailure(request, who) : undefined,
      anonymous: async () => {},
    };
  }

  const redis = config.redisUrl ? connectRedis(app, config.redisUrl) : undefined;
  await app.register(rateLimitPlugin, {
    global: false,
    max: config.rateLimit,
    timeWindow: WINDOW_MS,
    // Errors reach `charge` below, which serves the request and reports the failure.
    skipOnError: false,
    ...(redis ? { redis, nameSpace: config.redisKeyPrefix } : { store: InMemoryStore }),
    keyGenerator: (request) => request.rateLimitKey,
  });
  app.decorateRequest('rateLimitKey', '');
  const check = app.createRateLimit();
  const storeDown = throttledWarning(app.log);
  const limit = String(config.rateLimit);

  async function charge(request: FastifyRequest, reply: FastifyReply, budget: string): Promise<void> {
    request.rateLimitKey = budget;
    let result: Awaited<ReturnType<typeof check>>;
    try {
      result = await check(request);
    } catch (error) {
      // A shared budget that cannot be read must not take the API down with it.
      metrics?.rateLimitStoreError();
      storeDown({ err: { message: (error as Error).message } }, 'rate-limit store (Redis) unavailable: serving requests without a limit');
      reply.header('X-RateLimit-Limit', limit);
      return;
    }
    if (result.isAllowed) return;
    const ttl = Math.max(0, result.ttl);
    reply.header('X-RateLimit-Limit', limit);
    reply.header('X-RateLimit-Remaining', String(result.remaining));
    // Seconds until the window closes; go-tfe parses it as a float and waits that long.
    reply.header('X-RateLimit-Reset', String(ttl / 1000));
    if (result.isExceeded) {
      metrics?.rateLimited(budget.startsWith('address:') ? 'address' : 'caller');
      reply.header('Retry-After', String(Math.max(1, Math.ceil(ttl / 1000))));
      throw errors.tooManyRequests();
    }
  }

  return {
    admit: async (request, reply, who) => {
      countFailure(request, who);
      await charge(request, reply, budgetOf(request, who));
    },
    anonymous: (request, reply) => charge(request, reply, budgetOf(request, null)),
  };
}

function connectRedis(app: FastifyInstance, url: string): Redis {
  const redis = new Redis(url, {
    // Fail at once while disconnected instead of queueing: the request is then served unlimited.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_STARTUP_WAIT_MS,
    // Keep reconnecting, so that limiting resumes by itself when Redis returns.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const down = throttledWarning(app.log);
  let failing = false;
  redis.on('error', (error: Error) => {
    failing = true;
    down({ err: { message: error.message } }, 'cannot reach Redis (HANGAR_REDIS_URL): rate limits are not enforced until it is back');
  });
  redis.on('ready', () => {
    if (failing) app.log.info('Redis is reachable again: rate limits are enforced');
    failing = false;
  });
  app.addHook('onReady', async () => {
    if (redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const ready = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        redis.off('ready', ready);
        resolve();
      }, REDIS_STARTUP_WAIT_MS);
      redis.once('ready', ready);
    });
  });
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return redis;
}
