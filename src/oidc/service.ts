// Single sign-on with OpenID Connect: the authorization code flow with PKCE, state and nonce,
// through openid-client, against any standard provider (HANGAR_OIDC_*).
//
// The browser that begins a sign-in gets a random cookie; its digest keys the row that holds the
// state, the nonce and the PKCE verifier. Only that browser can finish the sign-in, once, within
// ten minutes: a callback URL carried to another browser (someone else's code, to sign a victim
// in as the attacker) finds no row. openid-client checks the rest: the state, the ID token's
// signature, issuer, audience, expiry and nonce.
//
// A provider account (issuer and subject) is matched to a user the first time by the configured
// claim (`email`: users' addresses, verified ones only; another claim: usernames), then by its
// subject alone. When nobody matches, HANGAR_OIDC_CREATE_USERS decides: a new user, or a refusal.
import * as client from 'openid-client';
import { digestSecret } from '../auth/secrets.ts';
import type { OidcConfig } from '../config.ts';
import { isUniqueViolation, type Database } from '../db/index.ts';
import { randomBase62 } from '../ids.ts';
import type { SessionsService } from '../sessions/service.ts';
import type { User, UsersService } from '../users/service.ts';
import * as store from './store.ts';

/** How long a browser has to come back from the provider. */
export const PENDING_LIFETIME_MS = 10 * 60_000;

/** A sign-in that cannot finish; the message is for the person in the browser. */
export class SignInRefused extends Error {}

/** Loopback providers may speak plain HTTP (a provider on the same machine); config.ts allows no other. */
const isLoopback = (url: URL) => url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);

/**
 * The settings (HANGAR_OIDC_*) come with each call, from the configuration the routes were built
 * with, so that one service serves whatever the app was configured with.
 */
export function createOidcService(deps: { database: Database; users: UsersService; sessions: SessionsService; clock?: () => number }) {
  const db = deps.database.db;
  const clock = deps.clock ?? Date.now;
  const iso = (ms: number) => new Date(ms).toISOString();
  const discoveries = new Map<string, Promise<client.Configuration>>();

  /** The provider's metadata, fetched at the first sign-in (not at start-up: Hangar starts while the provider is down) and kept. */
  function provider(oidc: OidcConfig): Promise<client.Configuration> {
    const key = JSON.stringify([oidc.issuer, oidc.clientId, oidc.clientSecret]);
    const known = discoveries.get(key);
    if (known) return known;
    const discovered = client
      .discovery(
        new URL(oidc.issuer),
        oidc.clientId,
        oidc.clientSecret ?? undefined,
        oidc.clientSecret ? client.ClientSecretBasic(oidc.clientSecret) : client.None(),
        isLoopback(new URL(oidc.issuer)) ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        // Asked again next time: the provider may be back.
        discoveries.delete(key);
        throw new SignInRefused('The sign-in provider cannot be reached; try again later', { cause: error });
      });
    discoveries.set(key, discovered);
    return discovered;
  }

  /** The user a verified ID token's claims stand for, matched, linked or created; or a refusal. */
  async function userFor(oidc: OidcConfig, claims: client.IDToken): Promise<User> {
    const issuer = claims.iss;
    const subject = claims.sub;
    const linked = await store.findIdentity(db, issuer, subject);
    if (linked) {
      const user = await deps.users.findById(linked);
      if (user && !user.isServiceAccount) return user;
    }
    const value = claims[oidc.claim];
    if (typeof value !== 'string' || value.length === 0) throw new SignInRefused(`The provider sent no ${oidc.claim} for your account`);
    const emailVerified = claims.email_verified !== false;
    if (oidc.claim === 'email' && !emailVerified) throw new SignInRefused('Your e-mail address is not verified at the provider');
    const found = oidc.claim === 'email' ? await deps.users.findPersonByEmail(value) : await deps.users.findByUsername(value);
    if (found?.isServiceAccount) throw new SignInRefused('No Hangar user matches your account');
    if (found && (await store.hasIdentityAt(db, found.id, issuer))) {
      // That user signs in with another account of this provider: this one is not theirs.
      throw new SignInRefused('Your account matches a Hangar user who signs in with another account');
    }
    if (!found && !oidc.createUsers) throw new SignInRefused('No Hangar user matches your account; ask an administrator to invite you');
    const email = typeof claims.email === 'string' ? claims.email : null;
    if (!found && (email === null || !emailVerified)) throw new SignInRefused('The provider sent no verified e-mail address for your account');
    const name =
      typeof claims.preferred_username === 'string' && claims.preferred_username ? claims.preferred_username : email!.slice(0, email!.lastIndexOf('@'));
    try {
      return await deps.database.transaction(async (trx) => {
        const user = found ?? (await deps.users.forSignIn(trx, { name, email: email! }));
        await store.insertIdentity(trx, { issuer, subject, userId: user.id, createdAt: iso(clock()) });
        return user;
      });
    } catch (error) {
      // The same account signing in twice at once: the other request linked it first.
      const winner = isUniqueViolation(error) ? await store.findIdentity(db, issuer, subject) : undefined;
      const user = winner && (await deps.users.findById(winner));
      if (!user) throw error;
      return user;
    }
  }

  return {
    /**
     * Begins a sign-in: the secret for the browser's cookie and the provider's authorization URL.
     * `redirectUri` is Hangar's callback as the provider knows it; `returnTo` a path of Hangar's
     * own, already checked by the page (web/return-to.ts).
     */
    async begin(oidc: OidcConfig, input: { redirectUri: string; returnTo: string }): Promise<{ cookieSecret: string; url: string }> {
      const configuration = await provider(oidc);
      const at = clock();
      await store.sweepPending(db, iso(at));
      const cookieSecret = randomBase62(43);
      const codeVerifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      await store.insertPending(db, {
        digest: digestSecret(cookieSecret),
        state,
        nonce,
        codeVerifier,
        redirectUri: input.redirectUri,
        returnTo: input.returnTo,
        createdAt: iso(at),
        expiresAt: iso(at + PENDING_LIFETIME_MS),
      });
      const url = client.buildAuthorizationUrl(configuration, {
        redirect_uri: input.redirectUri,
        response_type: 'code',
        scope: oidc.scopes.join(' '),
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return { cookieSecret, url: url.href };
    },

    /**
     * Finishes a sign-in at the callback: `query` is the callback URL's query string as the
     * provider sent it, `cookieSecret` the browser's cookie. A new session for the user, and
     * where to send the browser; or SignInRefused.
     */
    async finish(
      oidc: OidcConfig,
      input: { cookieSecret: string | null; query: string; address: string | null },
    ): Promise<{ sessionSecret: string; returnTo: string; userId: string }> {
      const pending = input.cookieSecret ? await store.takePending(db, digestSecret(input.cookieSecret)) : undefined;
      if (!pending || clock() >= Date.parse(pending.expiresAt)) {
        throw new SignInRefused('This sign-in expired or was begun in another browser; sign in again');
      }
      const configuration = await provider(oidc);
      const current = new URL(pending.redirectUri);
      current.search = input.query;
      let claims: client.IDToken | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(configuration, current, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
        // Many providers put only `sub` and the protocol's claims in the ID token and the profile
        // (e-mail, username) behind the UserInfo endpoint; its answer must be about the same
        // subject (openid-client checks), and the signed ID token's claims win where both speak.
        if (claims && configuration.serverMetadata().userinfo_endpoint && tokens.access_token) {
          const profile = await client.fetchUserInfo(configuration, tokens.access_token, claims.sub);
          claims = { ...profile, ...claims };
        }
      } catch (error) {
        const denied = error instanceof client.AuthorizationResponseError && error.error === 'access_denied';
        throw new SignInRefused(denied ? 'The provider did not sign you in' : "The provider's answer could not be verified; sign in again", { cause: error });
      }
      if (!claims) throw new SignInRefused('The provider sent no ID token');
      const user = await userFor(oidc, claims);
      const session = await deps.sessions.startFor(user.id, input.address);
      return { sessionSecret: session.secret, returnTo: pending.returnTo, userId: user.id };
    },
  };
}

export type OidcService = ReturnType<typeof createOidcService>;
