import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../jsonapi/errors.ts';
import { Caller, type TeamGrantLoader } from './caller.ts';
import type { AgentPrincipal, Principal } from './principal.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function bearerSecret(request: FastifyRequest): string | null {
  const match = BEARER.exec(request.headers.authorization ?? '');
  return match ? match[1]! : null;
}

/**
 * Told who is calling (null: nobody with a valid token) before the request goes any further,
 * and before a 401; may refuse the request itself (a spent rate limit answers 429).
 */
export type Admission = (request: FastifyRequest, reply: FastifyReply, who: Principal | AgentPrincipal | null) => Promise<void>;

/** Every request in the scope must carry a valid user or organization token; else 401. */
export function requireBearerToken(
  app: FastifyInstance,
  deps: { authenticate: (secret: string) => Promise<Principal | null>; grants: TeamGrantLoader; admit?: Admission },
): void {
  app.addHook('onRequest', async (request, reply) => {
    const secret = bearerSecret(request);
    const principal = secret ? await deps.authenticate(secret) : null;
    if (principal) request.caller = new Caller(principal, deps.grants);
    if (deps.admit) await deps.admit(request, reply, principal);
    if (!principal) throw errors.unauthorized();
  });
}

/** Every request in the scope must carry a valid agent token (and no other kind); else 401. */
export function requireAgentToken(
  app: FastifyInstance,
  deps: { authenticate: (secret: string) => Promise<AgentPrincipal | null>; admit?: Admission },
): void {
  app.addHook('onRequest', async (request, reply) => {
    const secret = bearerSecret(request);
    const agent = secret ? await deps.authenticate(secret) : null;
    if (agent) request.agent = agent;
    if (deps.admit) await deps.admit(request, reply, agent);
    if (!agent) throw errors.unauthorized();
  });
}
