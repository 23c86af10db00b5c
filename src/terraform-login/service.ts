// `terraform login`: OAuth 2.0's authorization code grant with PKCE (RFC 6749, RFC 7636), as the
// Terraform CLI speaks it (service discovery's `login.v1`). Terraform listens on a localhost
// port, opens the browser at the authorization page, receives a code there, and trades it here,
// with the PKCE verifier only it knows, for a user token it saves.
//
// A code is single use (a second presentation also ends the token the first one bought: RFC
// 6749 §4.1.2 says a replayed code means it leaked), lives two minutes, and is bound to the PKCE
// challenge, the client and the redirect URI it was issued for. The redirect URI must be a
// localhost port of the discovery document's range: Hangar never sends a code anywhere else.
import { createHash, timingSafeEqual } from 'node:crypto';
import { authorize } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import { digestSecret } from '../auth/secrets.ts';
import type { Database } from '../db/index.ts';
import { randomBase62 } from '../ids.ts';
import type { TokensService } from '../tokens/service.ts';
import * as store from './store.ts';

/** The one client: Terraform CLI, a public client (it holds no secret; PKCE stands in for one). */
export const LOGIN_CLIENT_ID = 'terraform-cli';
/** The ports Terraform may listen on for the code (TFE's own range). */
export const LOGIN_PORTS: readonly [number, number] = [10000, 10010];
export const CODE_LIFETIME_MS = 2 * 60_000;
/** Used and expired codes are kept this long past their end, so that a late replay still revokes. */
const KEEP_USED_MS = 24 * 60 * 60_000;

/** An OAuth 2.0 error (RFC 6749 §4.1.2.1, §5.2): its code, words for a person, and the status. */
export class OAuthError extends Error {
  readonly error: string;
  readonly status: number;
  constructor(error: string, description: string, status = 400) {
    super(description);
    this.error = error;
    this.status = status;
  }
}

/** An authorization request as Terraform sends it, checked. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
}

/** Whether a problem may be told to the client at its redirect URI, or only to the person in the browser. */
export type RequestProblem =
  { redirect: false; description: string } | { redirect: true; redirectUri: string; state: string | null; error: string; description: string };

const REDIRECT_URI = /^http:\/\/(localhost|127\.0\.0\.1):(\d{1,5})\/login$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const STATE_MAX = 512;

/**
 * Why `uri` is no redirect URI of `terraform login`, or null when it is one: Terraform's own
 * `http://localhost:<port>/login` (or 127.0.0.1) with a port of the advertised range. Nothing
 * else, so that a code can only ever reach a program on the person's own computer.
 */
export function redirectUriProblem(uri: string): string | null {
  const m = REDIRECT_URI.exec(uri);
  if (!m) return 'The redirect URI must be http://localhost:<port>/login, where terraform login listens';
  const port = Number(m[2]);
  if (port < LOGIN_PORTS[0] || port > LOGIN_PORTS[1]) return `The redirect URI's port must be from ${LOGIN_PORTS[0]} to ${LOGIN_PORTS[1]}`;
  return null;
}

/** base64url(SHA-256(verifier)), PKCE's S256 (RFC 7636 §4.2). */
export const challengeOf = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** The redirect back to Terraform: `code` and `state`, or an OAuth error. */
export function redirectTo(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * Checks an authorization request. A wrong client or redirect URI is told only to the person
 * (RFC 6749 §4.1.2.1: never redirect to a URI that is not known good); anything else wrong goes
 * back to Terraform at its redirect URI, which then says it.
 */
export function checkAuthorizationRequest(query: Record<string, string | undefined>): AuthorizationRequest | RequestProblem {
  const clientId = query.client_id;
  if (clientId !== LOGIN_CLIENT_ID) return { redirect: false, description: `Unknown client: only ${LOGIN_CLIENT_ID} (terraform login) may ask here` };
  const redirectUri = query.redirect_uri ?? '';
  const uriProblem = redirectUriProblem(redirectUri);
  if (uriProblem) return { redirect: false, description: uriProblem };
  const state = query.state ?? null;
  if (state !== null && (state.length > STATE_MAX || state.length === 0)) return { redirect: false, description: 'The state parameter is malformed' };
  const refuse = (error: string, description: string): RequestProblem => ({ redirect: true, redirectUri, state, error, description });
  if (query.response_type !== 'code') return refuse('unsupported_response_type', 'Only the authorization code grant (response_type=code) is offered');
  if (query.code_challenge_method !== 'S256') return refuse('invalid_request', 'PKCE with code_challenge_method=S256 is required');
  if (!CHALLENGE.test(query.code_challenge ?? '')) return refuse('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters)');
  return { clientId, redirectUri, state, codeChallenge: query.code_challenge! };
}

export const isProblem = (r: AuthorizationRequest | RequestProblem): r is RequestProblem => 'description' in r;

export function createTerraformLoginService(deps: { database: Database; tokens: TokensService; clock?: () => number }) {
  const db = deps.database.db;
  const clock = deps.clock ?? Date.now;
  const iso = (ms: number) => new Date(ms).toISOString();

  return {
    /**
     * The code for a person who clicked Authorize: they may only ever ask for a token of their
     * own. The caller is the browser session's.
     */
    async issueCode(caller: Caller, request: AuthorizationRequest): Promise<string> {
      const principal = caller.principal;
      if (principal.kind !== 'user') throw new OAuthError('access_denied', 'Only a person may authorize terraform login', 403);
      authorize({ principal, userId: principal.user.id }, 'manage-user-tokens');
      const at = clock();
      // Sweeping here keeps the table small without a background loop: codes are few.
      await store.sweep(db, iso(at - KEEP_USED_MS));
      const code = randomBase62(43);
      await store.insertCode(db, {
        digest: digestSecret(code),
        userId: principal.user.id,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        createdAt: iso(at),
        expiresAt: iso(at + CODE_LIFETIME_MS),
        usedAt: null,
        tokenId: null,
      });
      return code;
    },

    /**
     * The token endpoint's authorization_code grant: a new user token for the code's user, or an
     * OAuthError. Every presentation of a code uses it up, whatever the outcome.
     */
    async exchange(form: Record<string, string | undefined>): Promise<{ accessToken: string; tokenId: string }> {
      if (form.grant_type !== 'authorization_code') throw new OAuthError('unsupported_grant_type', 'Only grant_type=authorization_code is supported');
      if (form.client_id !== LOGIN_CLIENT_ID) throw new OAuthError('invalid_client', `Unknown client: only ${LOGIN_CLIENT_ID} may trade codes here`, 401);
      for (const name of ['code', 'redirect_uri', 'code_verifier'] as const) {
        if (!form[name]) throw new OAuthError('invalid_request', `${name} is required`);
      }
      const code = form.code!;
      const invalid = () => new OAuthError('invalid_grant', 'The authorization code is invalid, expired or already used');
      const digest = digestSecret(code);
      const found = await store.findCode(db, digest);
      if (!found) throw invalid();
      const at = clock();
      if (!(await store.markUsed(db, digest, iso(at)))) {
        // A second presentation: whoever holds this copy of the code, the token the first
        // trade issued must not stay in unknown hands.
        if (found.tokenId !== null) await deps.tokens.revokeIssued(found.tokenId);
        throw invalid();
      }
      if (at >= Date.parse(found.expiresAt)) throw invalid();
      if (found.clientId !== form.client_id || found.redirectUri !== form.redirect_uri) {
        throw new OAuthError('invalid_grant', 'The redirect URI differs from the one the code was issued for');
      }
      const verifier = form.code_verifier!;
      if (!VERIFIER.test(verifier) || !sameText(challengeOf(verifier), found.codeChallenge)) {
        throw new OAuthError('invalid_grant', 'The code verifier does not match the code challenge');
      }
      const issued = await deps.tokens.issueUserToken(found.userId, `terraform login ${iso(at).slice(0, 16).replace('T', ' ')} UTC`);
      await store.recordToken(db, digest, issued.token.id);
      return { accessToken: issued.secret, tokenId: issued.token.id };
    },
  };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type TerraformLoginService = ReturnType<typeof createTerraformLoginService>;
