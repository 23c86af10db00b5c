import type { FastifyInstance } from 'fastify';
import { errors } from '../jsonapi/errors.ts';
import { Caller, type TeamGrantLoader } from './caller.ts';
import type { Principal } from './principal.ts';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Every request in the scope must carry a valid user or organization token; else 401. */
export function requireBearerToken(
  app: FastifyInstance,
  deps: { authenticate: (secret: string) => Promise<Principal | null>; grants: TeamGrantLoader },
): void {
  app.addHook('onRequest', async (request) => {
    const match = BEARER.exec(request.headers.authorization ?? '');
    const principal = match ? await deps.authenticate(match[1]!) : null;
    if (!principal) throw errors.unauthorized();
    request.caller = new Caller(principal, deps.grants);
  });
}
