// One log line per request, and what keeps secrets out of every line: tokens that a client put
// in a URL by mistake are redacted before the URL is logged.
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';

export const REDACTED = '[REDACTED]';
/** Hangar's own token format (`<14>.atlasv1.<67>`), wherever it appears in a URL, encoded or not. */
const TOKEN_SHAPE = /[A-Za-z0-9]+(?:\.|%2e)atlasv1(?:\.|%2e)[A-Za-z0-9]+/gi;
/**
 * Query parameters whose value is a credential whatever it looks like (`?token=`, `?api_key=`,
 * and OAuth's `?code=`: an authorization code at the single sign-on callback).
 */
const SECRET_PARAMETER = /token|secret|passw|key|auth|credential|signature|session|^code$/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An upload URL's last segment is its credential (configuration-versions/routes.ts, policy-set-versions/routes.ts). */
const UPLOAD_SECRET = /(\/_archivist\/v1\/(?:object|policy-set-version)\/)[^/?#]+/gi;

export function redactUrl(url: string): string {
  const clean = url.replace(TOKEN_SHAPE, REDACTED).replace(UPLOAD_SECRET, `$1${REDACTED}`);
  const q = clean.indexOf('?');
  if (q === -1) return clean;
  const query = clean
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq !== -1 && SECRET_PARAMETER.test(decoded(pair.slice(0, eq))) ? `${pair.slice(0, eq + 1)}${REDACTED}` : pair;
    })
    .join('&');
  return `${clean.slice(0, q + 1)}${query}`;
}

/** Who made the request, as ids (never a secret), for the request log. */
function caller(request: FastifyRequest): Record<string, string> | null {
  if (request.caller) {
    const p = request.caller.principal;
    if (p.kind === 'organization') return { tokenId: p.tokenId, organization: p.organizationName };
    if (p.kind === 'team') return { tokenId: p.tokenId, teamId: p.team.id, organization: p.organizationName };
    const orgs = request.caller.organizations;
    // A request about one organization names it; a list across several names none.
    return orgs.length === 1 ? { tokenId: p.tokenId, userId: p.user.id, organization: orgs[0]! } : { tokenId: p.tokenId, userId: p.user.id };
  }
  if (request.agent) return { tokenId: request.agent.tokenId, agentPoolId: request.agent.agentPoolId };
  return null;
}

/** Where log lines go and how much: pino's options, and a stream (tests capture lines with one). */
export type LoggerOptions = false | { level?: string; redact?: string[]; stream?: DestinationStream };

/**
 * Hangar's logger. Hangar owns it rather than handing it to Fastify: a Fastify with a logger
 * attaches listeners to every response and makes a child logger for every request even when
 * nothing is logged at the configured level, which was about a sixth of a cached show's CPU.
 */
export function createLogger(options: LoggerOptions): Logger {
  if (options === false) return pino({ level: 'silent' });
  const { stream, ...rest } = options;
  return stream ? pino(rest, stream) : pino(rest);
}

/**
 * One line per completed request, with the route pattern, the outcome and the caller, and a URL
 * with any credential in it redacted; request bodies and headers are never logged. Registered
 * only when `info` is on, so that a server logging warnings and errors pays nothing per request.
 */
export function logRequests(app: FastifyInstance, log: Logger): void {
  if (!log.isLevelEnabled('info')) return;
  app.addHook('onResponse', (request, reply, done) => {
    log.info(
      {
        reqId: request.id,
        method: request.method,
        route: request.routeOptions.url,
        url: redactUrl(request.url),
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        remoteAddress: request.ip,
        ...caller(request),
      },
      'request completed',
    );
    done();
  });
}

/**
 * A warning logged at most once per interval, with the number held back since the last one: a
 * dependency that fails on every request (Redis, the database behind /readyz) cannot flood the
 * log. A warning with another `key` than the last one (a new reason) is logged at once.
 */
export function throttledWarning(log: FastifyBaseLogger, intervalMs = 30_000) {
  let last = -Infinity;
  let lastKey: string | undefined;
  let heldBack = 0;
  return (details: Record<string, unknown>, message: string, key?: string) => {
    const now = Date.now();
    if (now - last < intervalMs && key === lastKey) {
      heldBack += 1;
      return;
    }
    log.warn({ ...details, ...(heldBack ? { heldBack } : {}) }, message);
    last = now;
    lastKey = key;
    heldBack = 0;
  };
}
