import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { errors } from '../jsonapi/errors.ts';
import { Caller, type TeamGrantLoader } from './caller.ts';
import type { AgentPrincipal, Principal } from './principal.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function bearerSecret(header: string): string | null {
  const match = BEARER.exec(header);
  return match ? match[1]! : null;
}

/**
 * Told who is calling (null: nobody with a valid token) before the request goes any further,
 * and before a 401; may refuse the request itself (a spent rate limit answers 429).
 */
export type Admission = (request: FastifyRequest, reply: FastifyReply, who: Principal | AgentPrincipal | null) => Promise<void>;

/** Bearer secret → who it stands for (tokens/service.ts). */
export interface Authenticator<P> {
  /** The secret's digest, the only form of it that goes further; null: the text cannot be a token. */
  digest(secret: string): string | null;
  /**
   * The answer when it is known without waiting (a cached token whose use needs no recording):
   * most requests, served without a promise. Undefined: ask `later`.
   */
  now(digest: string): P | undefined;
  /** The answer in full, querying and recording the token's use as needed; null: no such usable token. */
  later(digest: string): Promise<P | null>;
}

/**
 * The onRequest hook of an authenticated scope: `accept` records who is calling on the request.
 * A hook that takes a callback, not a promise: the authentication of nearly every request is
 * known at once (the token cache), and a promise chain per request cost more than the lookup.
 */
function tokenHook<P extends Principal | AgentPrincipal>(
  authenticator: Authenticator<P>,
  admit: Admission | undefined,
  accept: (request: FastifyRequest, who: P) => void,
): onRequestHookHandler {
  async function inFull(request: FastifyRequest, reply: FastifyReply, digest: string | null): Promise<void> {
    const who = digest !== null ? await authenticator.later(digest) : null;
    if (who) accept(request, who);
    if (admit) await admit(request, reply, who);
    if (!who) throw errors.unauthorized();
  }
  // Per connection, the last Authorization header it sent and that header's digest. Clients
  // keep a connection open and send the same token on each request (go-tfe, Terraform, agents),
  // so the secret is digested once per connection, not once per request. Only the digest is
  // kept: who it stands for is asked of the token cache every time, and a revocation empties
  // that, so a revoked token is refused on an open connection as on a new one. The header is
  // kept while its connection is open (a WeakMap entry goes with the socket), never logged.
  const digests = new WeakMap<object, { header: string; digest: string | null }>();
  function presentedDigest(request: FastifyRequest): string | null {
    const header = request.headers.authorization;
    if (header === undefined) return null;
    const connection = request.raw.socket as object | undefined;
    const last = connection && digests.get(connection);
    if (last && last.header === header) return last.digest;
    const secret = bearerSecret(header);
    const digest = secret === null ? null : authenticator.digest(secret);
    if (connection) digests.set(connection, { header, digest });
    return digest;
  }
  return (request, reply, done) => {
    // Digested once: a token the cache does not answer for is looked up by the same digest.
    const digest = presentedDigest(request);
    // Admission (rate limits, failure counts) may need to wait, so it always takes the full path.
    const known = digest !== null && !admit ? authenticator.now(digest) : undefined;
    if (known) {
      accept(request, known);
      return done();
    }
    inFull(request, reply, digest).then(() => done(), done);
  };
}

/** Every request in the scope must carry a valid user or organization token; else 401. */
export function requireBearerToken(app: FastifyInstance, deps: { authenticate: Authenticator<Principal>; grants: TeamGrantLoader; admit?: Admission }): void {
  app.addHook(
    'onRequest',
    tokenHook(deps.authenticate, deps.admit, (request, principal) => {
      request.caller = new Caller(principal, deps.grants);
    }),
  );
}

/** Every request in the scope must carry a valid agent token (and no other kind); else 401. */
export function requireAgentToken(app: FastifyInstance, deps: { authenticate: Authenticator<AgentPrincipal>; admit?: Admission }): void {
  app.addHook(
    'onRequest',
    tokenHook(deps.authenticate, deps.admit, (request, agent) => {
      request.agent = agent;
    }),
  );
}
