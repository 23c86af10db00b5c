// The session authenticator, beside the bearer one (plugin.ts): for the browser's front door. The
// cookie holds the session's secret; `HttpOnly` keeps it from scripts, `SameSite=Lax` from
// other sites' forms and fetches, `Secure` (under HTTPS) from plain connections, `Path=/` makes
// it one cookie for the whole site.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../jsonapi/errors.ts';
import { Caller, type TeamGrantLoader } from './caller.ts';
import type { Principal } from './principal.ts';

export const SESSION_COOKIE = 'hangar_session';

/** The session secret a request's Cookie header carries, if any (the first such cookie). */
export function sessionSecret(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** The Set-Cookie value that holds a new session (a browser-session cookie: gone when the browser closes). */
export function sessionCookie(secret: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${secret}; ${attributes(secure)}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; ${attributes(secure)}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** Whether the request reached Hangar over HTTPS (itself, or a trusted proxy's X-Forwarded-Proto). */
export const overHttps = (request: FastifyRequest) => request.protocol === 'https';

/** Every request in the scope must carry a live session's cookie; else 401. */
export function requireSession(app: FastifyInstance, deps: { authenticate: (secret: string) => Promise<Principal | null>; grants: TeamGrantLoader }): void {
  app.addHook('onRequest', async (request) => {
    const secret = sessionSecret(request);
    const principal = secret === null ? null : await deps.authenticate(secret);
    if (!principal) throw errors.unauthorized();
    request.caller = new Caller(principal, deps.grants);
  });
}
