// Probes for load balancers and orchestrators, outside /api/v2 and without a token:
// /healthz says the process is up; /readyz says it can serve (database reachable, migrations
// current). A failing /readyz answers 503 with a short reason; details go to the log only, since
// anyone may call it.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/index.ts';
import { pendingMigrations, SchemaTooNewError } from '../db/migrate.ts';
import { Type } from 'typebox';
import { Open, responses } from '../jsonapi/schemas.ts';
import { throttledWarning } from './logging.ts';

const tags = ['Operations'];
const Status = (status: string, description: string) => Open({ status: Type.String({ const: status }) }, { description });
const NotReady = Open(
  { status: Type.String({ const: 'unavailable' }), reason: Type.String() },
  { description: 'Not ready, with a short reason (details go to the log)' },
);

/** A database that has not answered by then is as good as down for a probe. */
const READY_TIMEOUT_MS = 2000;

type Readiness = { ready: true } | { ready: false; reason: string; error?: unknown };

async function readiness(database: Database): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Readiness>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: `the database did not answer within ${READY_TIMEOUT_MS / 1000} s` }), READY_TIMEOUT_MS);
  });
  const check = pendingMigrations(database).then(
    (pending): Readiness => (pending.length === 0 ? { ready: true } : { ready: false, reason: `database migrations pending: ${pending.join(', ')}` }),
    (error: unknown): Readiness =>
      // A newer Hangar migrated the shared database under this one: it should stop taking traffic.
      error instanceof SchemaTooNewError
        ? { ready: false, reason: 'the database schema is newer than this Hangar knows' }
        : { ready: false, reason: 'the database is unreachable', error },
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(app: FastifyInstance, database: Database): void {
  const warn = throttledWarning(app.log);

  const healthz = { summary: 'Liveness: the process is up', tags, response: responses({ 200: Status('ok', 'Up') }) };
  app.get('/healthz', { schema: healthz }, async (_request, reply) => reply.type('application/json').send({ status: 'ok' }));

  const readyz = {
    summary: 'Readiness: the database is reachable and its migrations are current',
    tags,
    response: { ...responses({ 200: Status('ready', 'Ready to serve') }), 503: NotReady },
  };
  app.get('/readyz', { schema: readyz }, async (_request, reply) => {
    const result = await readiness(database);
    if (result.ready) return reply.type('application/json').send({ status: 'ready' });
    const cause = result.error instanceof Error ? { err: { message: result.error.message, code: (result.error as { code?: unknown }).code } } : {};
    warn({ reason: result.reason, ...cause }, 'not ready', result.reason);
    return reply.code(503).type('application/json').send({ status: 'unavailable', reason: result.reason });
  });
}
