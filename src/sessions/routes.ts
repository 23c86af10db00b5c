// The browser's sign-in and sign-out, under /app (the web UI's front door, beside /api/v2). The
// form posts `username` and `password`; the answer sets the session cookie. The pages that post
// here come later: for now the answers are 204 and JSON:API errors.
import type { onRequestHookHandler } from 'fastify';
import type { Api } from '../api.ts';
import { clearedSessionCookie, overHttps, requireSession, sessionCookie, sessionSecret } from '../auth/session.ts';
import type { TeamGrantLoader } from '../auth/caller.ts';
import { errors } from '../jsonapi/errors.ts';
import { parseQuery } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { PUBLIC } from '../ops/openapi.ts';
import { SessionDocument, SignInForm } from './schemas.ts';
import type { SessionsService } from './service.ts';

const FORM = 'application/x-www-form-urlencoded';
const tags = ['Sessions'];

export async function sessionsRoutes(app: Api, deps: { sessions: SessionsService; grants: TeamGrantLoader; anonymous: onRequestHookHandler }): Promise<void> {
  const { sessions } = deps;
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => done(null, parseQuery(String(body))));
  const noStore = (reply: { header: (name: string, value: string) => unknown }) => reply.header('cache-control', 'no-store');

  app.post(
    '/session',
    {
      onRequest: [
        deps.anonymous,
        (request, _reply, done) =>
          done(request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === FORM ? undefined : errors.unsupportedMediaType(FORM)),
      ],
      schema: {
        summary: 'Sign in with a username and password (a form); sets the session cookie',
        tags,
        security: PUBLIC,
        body: SignInForm,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      const { username, password } = request.body;
      const signedIn = await sessions.signIn({ username, password, address: request.ip ?? null });
      // A new session, never one the browser came with: whatever cookie it had (perhaps planted
      // by someone else) stops working.
      const previous = sessionSecret(request);
      if (previous !== null) await sessions.signOut(previous);
      noStore(reply);
      reply.header('set-cookie', sessionCookie(signedIn.secret, overHttps(request)));
      return reply.code(204).send();
    },
  );

  app.delete(
    '/session',
    { schema: { summary: 'Sign out: the session ends and the cookie is removed', tags, security: PUBLIC, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      const secret = sessionSecret(request);
      if (secret !== null) await sessions.signOut(secret);
      noStore(reply);
      reply.header('set-cookie', clearedSessionCookie(overHttps(request)));
      return reply.code(204).send();
    },
  );

  // The same `app` name inside: each route of the file is `app.<method>(`, which the
  // architecture test counts against its response schemas.
  await app.register(async (scope) => {
    const app = scope as unknown as Api;
    requireSession(scope, { authenticate: sessions.authenticate, grants: deps.grants });
    app.get(
      '/session',
      { schema: { summary: 'The session the cookie stands for', tags, response: responses({ 200: SessionDocument }) } },
      async (request, reply) => {
        const principal = request.caller.principal;
        if (principal.kind !== 'user') throw errors.unauthorized();
        const shown = await sessions.show(principal.tokenId);
        noStore(reply);
        return {
          data: {
            id: shown.id,
            type: 'sessions',
            attributes: { username: principal.user.username, 'created-at': shown.createdAt, 'expires-at': shown.expiresAt },
            relationships: { user: { data: { id: principal.user.id, type: 'users' }, links: { related: `/api/v2/users/${principal.user.id}` } } },
          },
        };
      },
    );
  });
}
