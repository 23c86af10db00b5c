import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../jsonapi/errors.ts';
import { Caller, type TeamGrantLoader } from './caller.ts';
import type { AgentPrincipal, Principal } from './principal.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function bearerSecret(request: FastifyRequest): string | null {
  const match = BEARER.exec(request.headers.authorization ?? '');
  return match ? match[1]! : null;
}

/** Every request in the scope must carry a valid user or organization token; else 401. */
export function requireBearerToken(
  app: FastifyInstance,
  deps: { authenticate: (secret: string) => Promise<Principal | null>; grants: TeamGrantLoader },
): void {
  app.addHook('onRequest', async (request) => {
    const secret = bearerSecret(request);
    const principal = secret ? await deps.authenticate(secret) : null;
    if (!principal) throw errors.unauthorized();
    request.caller = new Caller(principal, deps.grants);
  });
}

/** Every request in the scope must carry a valid agent token (and no other kind); else 401. */
export function requireAgentToken(app: FastifyInstance, deps: { authenticate: (secret: string) => Promise<AgentPrincipal | null> }): void {
  app.addHook('onRequest', async (request) => {
    const secret = bearerSecret(request);
    const agent = secret ? await deps.authenticate(secret) : null;
    if (!agent) throw errors.unauthorized();
    request.agent = agent;
  });
}
