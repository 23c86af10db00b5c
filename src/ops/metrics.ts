// Prometheus metrics (prom-client). Labels are route patterns, methods, status codes and fixed
// kinds, never a raw URL, an id or a token, so the number of series stays bounded and nothing
// secret can reach a scrape. Served at GET /metrics by a listener of its own
// (HANGAR_METRICS_PORT), and on the public port only behind HANGAR_METRICS_TOKEN.
import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { Type } from 'typebox';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';

/** Where an unmatched URL is counted: the raw URL would let any client mint new series. */
const UNMATCHED = 'unmatched';
const HEARTBEAT_ROUTE = '/api/agent/status';

export type AuthFailure = 'missing' | 'invalid';
export type Budget = 'caller' | 'address';

export interface Metrics {
  readonly registry: Registry;
  authFailure(reason: AuthFailure): void;
  rateLimited(budget: Budget): void;
  rateLimitStoreError(): void;
  /** Starts the metrics listener (HANGAR_METRICS_PORT) and answers its address; null if none. */
  listen(): Promise<string | null>;
}

interface RouteSeries {
  labels: { method: string; route: string; status_code: string };
  duration: Histogram.Internal<string>;
  /** Requests so far, and how many of them the counter has been told about. */
  count: number;
  reported: number;
  heartbeat: boolean;
}

export function createMetrics(database: Database): Omit<Metrics, 'listen'> & { observe(app: FastifyInstance): void } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // One series lookup per request: label objects are built once per route, method and status.
  const series = new Map<string, RouteSeries>();
  new Counter({
    name: 'hangar_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status code',
    labelNames: ['method', 'route', 'status_code'],
    registers: [registry],
    // Counted with a plain increment per request and handed over when scraped: prom-client
    // validates and hashes the labels on every inc(), which would double the hook's cost.
    collect() {
      for (const s of series.values()) {
        if (s.count !== s.reported) this.inc(s.labels, s.count - s.reported);
        s.reported = s.count;
      }
    },
  });
  const duration = new Histogram({
    name: 'hangar_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by route pattern, method and status code',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const authFailures = new Counter({
    name: 'hangar_auth_failures_total',
    help: 'Requests refused for want of a valid token (401), by reason: missing or invalid',
    labelNames: ['reason'],
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'hangar_rate_limit_refusals_total',
    help: 'Requests refused with 429, by budget: caller (a token) or address (no valid token)',
    labelNames: ['budget'],
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'hangar_rate_limit_store_errors_total',
    help: 'Requests served without a rate-limit check because the shared store (Redis) failed',
    registers: [registry],
  });
  const heartbeats = new Counter({
    name: 'hangar_agent_heartbeats_total',
    help: 'Agent status reports accepted (POST /api/agent/status)',
    registers: [registry],
  });
  // Database figures are read when scraped: requests pay nothing for them.
  let reportedErrors = 0;
  new Counter({
    name: 'hangar_database_errors_total',
    help: 'Failed database statements and connection attempts (constraint violations excluded)',
    registers: [registry],
    collect() {
      const errors = database.stats().errors;
      this.inc(errors - reportedErrors);
      reportedErrors = errors;
    },
  });
  new Gauge({
    name: 'hangar_database_pool_connections',
    help: 'PostgreSQL connection pool: connections open (total) and not in use (idle); absent on SQLite',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = database.stats().pool;
      if (!pool) return;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
    },
  });
  new Gauge({
    name: 'hangar_database_pool_waiting',
    help: 'Queries waiting for a PostgreSQL connection from the pool; absent on SQLite',
    registers: [registry],
    collect() {
      const pool = database.stats().pool;
      if (pool) this.set(pool.waiting);
    },
  });

  function seriesFor(method: string, route: string, status: number): RouteSeries {
    const key = `${method} ${status} ${route}`;
    let s = series.get(key);
    if (!s) {
      const labels = { method, route, status_code: String(status) };
      s = { labels, duration: duration.labels(labels), count: 0, reported: 0, heartbeat: method === 'POST' && route === HEARTBEAT_ROUTE && status < 300 };
      series.set(key, s);
    }
    return s;
  }

  return {
    registry,
    authFailure: (reason) => authFailures.inc({ reason }),
    rateLimited: (budget) => rateLimited.inc({ budget }),
    rateLimitStoreError: () => storeErrors.inc(),
    observe(app) {
      app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        const s = seriesFor(request.method, request.routeOptions.url ?? UNMATCHED, reply.statusCode);
        s.count += 1;
        s.duration.observe(reply.elapsedTime / 1000);
        if (s.heartbeat) heartbeats.inc();
        done();
      });
    },
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** GET /metrics, behind the metrics token when one is configured (compared in constant time). */
function metricsRoute(app: FastifyInstance, registry: Registry, token: string | null): void {
  const expected = token === null ? null : digest(`Bearer ${token}`);
  const schema = {
    summary: 'Metrics in the Prometheus text format (only where configured: HANGAR_METRICS_PORT, HANGAR_METRICS_TOKEN)',
    tags: ['Operations'],
    security: token === null ? [] : [{ metricsToken: [] }],
    produces: ['text/plain'],
    // Sent as text, so nothing is serialized through these; they describe the answers.
    response: { 200: Type.String({ description: 'Prometheus exposition format' }), 401: Type.String({ description: 'No or the wrong metrics token' }) },
  };
  app.get('/metrics', { schema }, async (request, reply) => {
    if (expected && !timingSafeEqual(digest(request.headers.authorization ?? ''), expected)) {
      return reply.code(401).header('www-authenticate', 'Bearer').type('text/plain').send('unauthorized\n');
    }
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Null when metrics are off (neither HANGAR_METRICS_PORT nor HANGAR_METRICS_TOKEN is set). */
    metrics: Metrics | null;
  }
}

/**
 * Metrics are collected only when something can read them. Without HANGAR_METRICS_TOKEN the
 * public port has no /metrics at all: request counts and latencies are nobody's business.
 */
export function registerMetrics(app: FastifyInstance, config: Config, database: Database): Metrics | null {
  if (config.metricsPort === null && config.metricsToken === null) {
    app.decorate('metrics', null);
    return null;
  }
  const collected = createMetrics(database);
  collected.observe(app);
  if (config.metricsToken !== null) metricsRoute(app, collected.registry, config.metricsToken);
  let listen = async (): Promise<string | null> => null;
  if (config.metricsPort !== null) {
    // Meant for a private address: /metrics only, behind the token as well when one is set.
    const listener = Fastify({ logger: false });
    metricsRoute(listener, collected.registry, config.metricsToken);
    app.addHook('onClose', async () => {
      await listener.close();
    });
    listen = () => listener.listen({ host: config.metricsHost, port: config.metricsPort! });
  }
  const metrics: Metrics = { ...collected, listen };
  app.decorate('metrics', metrics);
  return metrics;
}
