import { Type } from 'typebox';

const field = (description: string) => Type.Optional(Type.String({ maxLength: 2048, description }));

/**
 * The token endpoint's form (`application/x-www-form-urlencoded`, RFC 6749 §4.1.3). Every field
 * is optional here: a missing one is an OAuth `invalid_request`, which the service words.
 */
export const TokenForm = Type.Object({
  grant_type: field('authorization_code'),
  code: field('The code the authorization page sent to the redirect URI'),
  redirect_uri: field('The redirect URI the code was issued for'),
  client_id: field('terraform-cli'),
  code_verifier: field("The PKCE verifier whose S256 digest was the request's code_challenge"),
});

export const TokenResponse = Type.Object(
  { access_token: Type.String({ description: 'A new user API token' }), token_type: Type.Literal('bearer') },
  { description: 'The token (RFC 6749 §5.1)' },
);

export const OAuthErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'invalid_request, invalid_client, invalid_grant, unsupported_grant_type, …' }),
    error_description: Type.Optional(Type.String()),
  },
  { description: 'An OAuth 2.0 error (RFC 6749 §5.2)' },
);
