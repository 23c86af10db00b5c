// The token endpoint of `terraform login` (service.ts says how the grant works). It speaks OAuth
// 2.0, not JSON:API: a form in, `application/json` out, errors as `{ error, error_description }`.
import type { FastifyError, FastifyReply, onRequestHookHandler } from 'fastify';
import type { Api } from '../api.ts';
import { ApiError } from '../jsonapi/errors.ts';
import { responses } from '../jsonapi/schemas.ts';
import { PUBLIC } from '../ops/openapi.ts';
import { OAuthErrorResponse, TokenForm, TokenResponse } from './schemas.ts';
import { OAuthError, type TerraformLoginService } from './service.ts';

const FORM = 'application/x-www-form-urlencoded';
export const TOKEN_PATH = '/oauth2/token';

/** RFC 6749 §5.1: token answers, errors included, are never cached. */
function oauthHeaders(reply: FastifyReply): FastifyReply {
  return reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').header('pragma', 'no-cache');
}

function sendOAuthError(reply: FastifyReply, e: OAuthError): FastifyReply {
  return oauthHeaders(reply).code(e.status).send({ error: e.error, error_description: e.message });
}

/** Register in a scope of its own: its error handler answers in OAuth's words, not JSON:API's. */
export async function terraformLoginTokenRoutes(app: Api, deps: { terraformLogin: TerraformLoginService; anonymous: onRequestHookHandler }): Promise<void> {
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    if (error instanceof OAuthError) return sendOAuthError(reply, error);
    const status = error instanceof ApiError ? error.status : error.validation ? 400 : (error.statusCode ?? 500);
    if (status >= 500) {
      reply.log.error({ err: error }, 'token endpoint failed');
      return sendOAuthError(reply, new OAuthError('server_error', 'The server could not issue a token', 500));
    }
    const code = status === 429 ? 'temporarily_unavailable' : 'invalid_request';
    return sendOAuthError(reply, new OAuthError(code, status === 415 ? `The body must be ${FORM}` : 'The request is malformed', status));
  });

  app.post(
    TOKEN_PATH,
    {
      onRequest: deps.anonymous,
      // Before the body is read: a body of another type (JSON, however deep) is refused unparsed.
      preParsing: async (request, _reply, payload) => {
        if (request.headers['content-type']?.split(';')[0]?.trim().toLowerCase() !== FORM) {
          throw new OAuthError('invalid_request', `The body must be ${FORM}`, 415);
        }
        return payload;
      },
      schema: {
        summary: "terraform login's token endpoint: trade an authorization code and its PKCE verifier for a user token",
        tags: ['Sign-in'],
        security: PUBLIC,
        consumes: [FORM],
        body: TokenForm,
        response: responses({ 200: TokenResponse, 400: OAuthErrorResponse, 401: OAuthErrorResponse }),
      },
    },
    async (request, reply) => {
      const { accessToken } = await deps.terraformLogin.exchange(request.body);
      return oauthHeaders(reply).send({ access_token: accessToken, token_type: 'bearer' });
    },
  );
}
