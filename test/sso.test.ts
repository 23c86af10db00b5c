// Single sign-on against a real OpenID provider (oidc-provider) that this test starts in its own
// process, driven by real Chromium: the sign-in page's button, the provider's login and consent,
// the callback, the session. Then the refusals: a wrong state, a wrong nonce, an ID token for
// another audience, a callback carried to another browser or used twice, nobody matching; and
// the session fixation and open-redirect guards on the way.
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import Provider from 'oidc-provider';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { suite, unique } from './helpers/harness.ts';
import { newContext, openBrowser, serve } from './helpers/browser.ts';
import { digestSecret } from '../src/auth/secrets.ts';

const CLIENT_ID = 'hangar-test';
const CLIENT_SECRET = 'a-client-secret-only-this-test-knows';

// The provider's signing key: the test signs tampered ID tokens with it too, so that only the
// claim it changes (the audience) is wrong, never the signature.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const JWK = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' };

/** The provider's accounts by login (its devInteractions accept any password): the claims each has. */
const accounts = new Map<string, Record<string, unknown>>();
/** When set, every ID token the provider issues is re-signed after this changes its claims. */
let tamper: ((claims: Record<string, unknown>) => void) | null = null;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function resigned(jwt: string, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload] = jwt.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
  change(claims);
  const input = `${header}.${b64(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** Rewrites the ID token in the token endpoint's answer (the body is written once, at the end). */
function tampering(res: ServerResponse, change: (claims: Record<string, unknown>) => void): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return end(chunk);
    const body = JSON.parse(String(chunk));
    if (typeof body.id_token === 'string') body.id_token = resigned(body.id_token, change);
    const text = JSON.stringify(body);
    res.setHeader('content-length', Buffer.byteLength(text));
    return end(text);
  }) as typeof res.end;
}

/** When set, the provider's redirects to this prefix (Hangar's callback) are kept here instead of followed. */
let catchRedirectsTo: string | null = null;
const caught: string[] = [];
const CAUGHT = 'caught by a test';

/** Answers a redirect to `prefix` with a plain page, keeping its URL (the browser never goes there). */
function catching(res: ServerResponse, prefix: string): void {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    const location = String(res.getHeader('location') ?? '');
    if (res.statusCode < 300 || res.statusCode >= 400 || !location.startsWith(prefix)) return end(chunk);
    caught.push(location);
    res.statusCode = 200;
    res.removeHeader('location');
    res.setHeader('content-type', 'text/plain');
    res.setHeader('content-length', Buffer.byteLength(CAUGHT));
    return end(CAUGHT);
  }) as typeof res.end;
}

// The provider's HTTP server listens before any suite is declared: its URL is Hangar's issuer.
let provider: Provider | null = null;
const idp = createServer((req: IncomingMessage, res: ServerResponse) => {
  if (!provider) return void res.writeHead(503).end();
  if (tamper && req.method === 'POST' && req.url?.startsWith('/token')) tampering(res, tamper);
  if (catchRedirectsTo) catching(res, catchRedirectsTo);
  provider.callback()(req, res);
});
await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
const ISSUER = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
after(() => new Promise<void>((resolve) => idp.close(() => resolve())));

/** A provider that knows Hangar at `base` (its callback is a registered redirect URI). */
function startProvider(base: string): Provider {
  return new Provider(ISSUER, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [`${base}/app/oidc/callback`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [JWK] },
    cookies: { keys: ['a-cookie-key-for-the-test-provider'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name'] },
    async findAccount(_ctx, id) {
      const claims = accounts.get(id);
      if (!claims) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
    },
  });
}

suite(
  'single sign-on (OpenID Connect)',
  (ctx) => {
    let base: string;
    let browser: Browser;
    before(async () => {
      base = await serve(ctx);
      provider = startProvider(base);
      browser = await openBrowser();
    });
    after(async () => {
      await browser?.close();
    });

    /** A provider account with these claims; its login is returned. */
    function account(claims: Record<string, unknown>): string {
      const login = unique('acct');
      accounts.set(login, claims);
      return login;
    }

    /**
     * Signs in at the provider in a fresh browser context (its login page, then consent), from
     * wherever `start` sends the browser. `stopAtCallback`: the provider's redirect back to Hangar
     * is caught (by the provider's server, above) and its URL returned, unused.
     */
    async function atProvider(start: string, login: string, stopAtCallback = false): Promise<{ context: BrowserContext; page: Page; callback?: string }> {
      const { context, page } = await newContext(browser, base);
      page.setDefaultTimeout(30_000);
      catchRedirectsTo = stopAtCallback ? `${base}/app/oidc/callback` : null;
      caught.length = 0;
      await page.goto(start);
      // From the sign-in page, through its button, as a person would.
      if (new URL(start).pathname === '/app/sign-in') await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
      await page.waitForURL(`${ISSUER}/**`);
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', 'anything');
      await page.click('button[type=submit]');
      // Consent: each context is a new browser to the provider, so it asks every time.
      await page.click('button:has-text("Continue")');
      if (stopAtCallback) {
        await page.getByText(CAUGHT).waitFor();
        catchRedirectsTo = null;
        return { context, page, callback: caught.at(-1)! };
      }
      await page.waitForURL(`${base}/**`);
      return { context, page };
    }

    /** The log lines of refused sign-ins: the operator learns which check failed. */
    const refusals = () =>
      ctx.logs
        .split('\n')
        .filter((l) => l.includes('single sign-on refused'))
        .map((l) => JSON.parse(l) as { reason: string; cause?: string; claim?: string });

    /** A cookie Hangar set in the browser (any path: the sign-in's own is under /app/oidc). */
    const cookieOf = async (context: BrowserContext, name: string) => (await context.cookies()).find((c) => c.name === name)?.value;

    /** The callback as another client would send it (app.inject), with these cookies. */
    const callback = (url: string, cookies: Record<string, string | undefined>) =>
      ctx.app.inject({
        method: 'GET',
        url: url.slice(base.length),
        headers: {
          cookie: Object.entries(cookies)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => `${k}=${v}`)
            .join('; '),
        },
      });

    it('signs a person in through the provider from the sign-in page, matched by e-mail, and returns where they were going', async () => {
      const username = unique('sso');
      const email = `${username}@corp.example`;
      const user = await ctx.services.users.create({ username, email: email.toUpperCase() });
      const login = account({ email, email_verified: true, preferred_username: 'someone-else' });
      const signInPage = await ctx.app.inject({ method: 'GET', url: '/app/sign-in?return_to=/app/organizations' });
      assert.match(signInPage.body, /href="\/app\/oidc\/start\?return_to=%2Fapp%2Forganizations"/);
      const { context, page } = await atProvider(`${base}/app/sign-in?return_to=/app/organizations`, login);
      assert.equal(new URL(page.url()).pathname, '/app/organizations');
      const session = await cookieOf(context, 'hangar_session');
      assert.ok(session);
      const shown = await ctx.request('GET', '/app/session', { headers: { cookie: `hangar_session=${session}` } });
      assert.equal(shown.status, 200);
      assert.equal(shown.body.data.attributes.username, user.username);
      // The browser's tie to the sign-in is gone, and the provider account is now linked.
      assert.equal(await cookieOf(context, 'hangar_sso'), undefined);
      const linked = await (ctx.database.db as any).selectFrom('user_identities').selectAll().where('user_id', '=', user.id).execute();
      assert.deepEqual(
        linked.map((r: any) => [r.issuer, r.subject]),
        [[ISSUER, login]],
      );
      assert.ok(!ctx.logs.includes(CLIENT_SECRET) && !ctx.logs.includes(session));
      await context.close();

      // The next time the subject decides, whatever the address has become at the provider.
      accounts.set(login, { email: `changed-${email}`, email_verified: true });
      const again = await atProvider(`${base}/app/oidc/start`, login);
      assert.equal(new URL(again.page.url()).pathname, '/app/organizations');
      const shownAgain = await ctx.request('GET', '/app/session', { headers: { cookie: `hangar_session=${await cookieOf(again.context, 'hangar_session')}` } });
      assert.equal(shownAgain.body.data.attributes.username, user.username);
      await again.context.close();
    });

    it('refuses an account nobody matches (unless new users are allowed), and an unverified address', async () => {
      const nobody = account({ email: `${unique('nobody')}@corp.example`, email_verified: true });
      const first = await atProvider(`${base}/app/oidc/start`, nobody);
      assert.equal(new URL(first.page.url()).pathname, '/app/oidc/callback');
      assert.match(await first.page.content(), /No Hangar user matches your account/);
      assert.equal(await cookieOf(first.context, 'hangar_session'), undefined);
      await first.context.close();

      const username = unique('unverified');
      await ctx.services.users.create({ username, email: `${username}@corp.example` });
      const unverified = account({ email: `${username}@corp.example`, email_verified: false });
      const second = await atProvider(`${base}/app/oidc/start`, unverified);
      assert.match(await second.page.content(), /not verified/);
      assert.equal(await cookieOf(second.context, 'hangar_session'), undefined);
      await second.context.close();

      // With HANGAR_OIDC_CREATE_USERS=true (the settings object the app was built with), a new
      // user named after the account.
      const oidc = ctx.config.oidc!;
      oidc.createUsers = true;
      try {
        const name = unique('newcomer');
        const newcomer = account({ email: `${name}@corp.example`, email_verified: true, preferred_username: name });
        const made = await atProvider(`${base}/app/oidc/start`, newcomer);
        assert.equal(new URL(made.page.url()).pathname, '/app/organizations');
        const created = await ctx.services.users.findByUsername(name);
        assert.ok(created);
        assert.equal(created.email, `${name}@corp.example`);
        assert.equal(created.isSiteAdmin, false);
        await made.context.close();
      } finally {
        oidc.createUsers = false;
      }
    });

    it('matches by another claim (preferred_username against usernames) when HANGAR_OIDC_CLAIM says so', async () => {
      const username = unique('byname');
      const user = await ctx.services.users.create({ username, email: `${username}@elsewhere.example` });
      const login = account({ preferred_username: username, email: `${username}@corp.example`, email_verified: true });
      const oidc = ctx.config.oidc!;
      oidc.claim = 'preferred_username';
      try {
        const { context } = await atProvider(`${base}/app/oidc/start`, login);
        const shown = await ctx.request('GET', '/app/session', { headers: { cookie: `hangar_session=${await cookieOf(context, 'hangar_session')}` } });
        assert.equal(shown.body.data.relationships.user.data.id, user.id);
        await context.close();
      } finally {
        oidc.claim = 'email';
      }
    });

    it('refuses a callback with a wrong state, one carried to another browser, and one used twice; replaces a planted session', async () => {
      const username = unique('state');
      await ctx.services.users.create({ username, email: `${username}@corp.example` });
      const login = account({ email: `${username}@corp.example`, email_verified: true });

      const first = await atProvider(`${base}/app/oidc/start`, login, true);
      const url = first.callback;
      const sso = await cookieOf(first.context, 'hangar_sso');
      assert.ok(url && sso, `${url} ${sso} ${JSON.stringify(await first.context.cookies())}`);
      await first.context.close();
      const wrongState = new URL(url);
      wrongState.searchParams.set('state', 'not-the-state');
      const refused = await callback(wrongState.href, { hangar_sso: sso });
      assert.equal(refused.statusCode, 401);
      assert.match(refused.body, /could not be verified/);
      assert.ok(!String(refused.headers['set-cookie']).includes('hangar_session='));
      // The attempt used the sign-in up: the right URL now finds nothing to finish.
      const late = await callback(url, { hangar_sso: sso });
      assert.equal(late.statusCode, 401);
      assert.match(late.body, /expired or was begun in another browser/);

      // A fresh callback URL without the browser's cookie (someone else's browser): refused.
      const second = await atProvider(`${base}/app/oidc/start`, login, true);
      const url2 = second.callback!;
      const sso2 = await cookieOf(second.context, 'hangar_sso');
      await second.context.close();
      assert.equal((await callback(url2, {})).statusCode, 401);
      assert.equal((await callback(url2, { hangar_sso: 'a'.repeat(43) })).statusCode, 401);
      // The same URL with the right cookie works, once; a session the browser came with (planted
      // by someone else) is revoked and replaced: session fixation gains nothing.
      const planted = await ctx.services.sessions.startFor((await ctx.services.users.findByUsername(username))!.id, null);
      const ok = await callback(url2, { hangar_sso: sso2, hangar_session: planted.secret });
      assert.equal(ok.statusCode, 303, ok.body);
      assert.equal(ok.headers.location, '/app');
      const fresh = /hangar_session=([0-9A-Za-z]{43})/.exec(String(ok.headers['set-cookie']))![1]!;
      assert.notEqual(fresh, planted.secret);
      assert.equal(await ctx.services.sessions.authenticate(planted.secret), null);
      assert.ok(await ctx.services.sessions.authenticate(fresh));
      assert.equal((await callback(url2, { hangar_sso: sso2 })).statusCode, 401);
    });

    it('refuses an ID token whose nonce is not the one the sign-in sent', async () => {
      const username = unique('nonce');
      await ctx.services.users.create({ username, email: `${username}@corp.example` });
      const login = account({ email: `${username}@corp.example`, email_verified: true });
      const caught = await atProvider(`${base}/app/oidc/start`, login, true);
      const sso = (await cookieOf(caught.context, 'hangar_sso'))!;
      await caught.context.close();
      // The provider echoes the nonce it was sent; changing the one Hangar expects stands for a
      // token minted for another sign-in.
      await (ctx.database.db as any).updateTable('oidc_sign_ins').set({ nonce: 'another-nonce' }).where('digest', '=', digestSecret(sso)).execute();
      const refused = await callback(caught.callback!, { hangar_sso: sso });
      assert.equal(refused.statusCode, 401);
      assert.match(refused.body, /could not be verified/);
      // The operator learns which check failed.
      assert.equal(refusals().at(-1)?.claim, 'nonce');
    });

    it('refuses an ID token issued for another audience, though properly signed', async () => {
      const username = unique('aud');
      await ctx.services.users.create({ username, email: `${username}@corp.example` });
      const login = account({ email: `${username}@corp.example`, email_verified: true });
      tamper = (claims) => {
        claims.aud = 'some-other-client';
      };
      try {
        const { context, page } = await atProvider(`${base}/app/oidc/start`, login);
        assert.match(await page.content(), /could not be verified/);
        assert.equal(await cookieOf(context, 'hangar_session'), undefined);
        assert.equal(refusals().at(-1)?.claim, 'aud');
        await context.close();
      } finally {
        tamper = null;
      }
      // The same re-signing with the claims left alone is accepted: only the audience was wrong.
      tamper = () => {};
      try {
        const { context, page } = await atProvider(`${base}/app/oidc/start`, login);
        assert.equal(new URL(page.url()).pathname, '/app/organizations');
        await context.close();
      } finally {
        tamper = null;
      }
    });

    it('keeps the way back on this site: a foreign or scheme-relative return address becomes the start page', async () => {
      for (const evil of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/api/v2/../../evil']) {
        const res = await ctx.app.inject({ method: 'GET', url: `/app/oidc/start?return_to=${encodeURIComponent(evil)}` });
        assert.equal(res.statusCode, 303);
        assert.ok(String(res.headers.location).startsWith(`${ISSUER}/`), String(res.headers.location));
        const secret = /hangar_sso=([0-9A-Za-z]{43})/.exec(String(res.headers['set-cookie']))![1]!;
        const row = await (ctx.database.db as any)
          .selectFrom('oidc_sign_ins')
          .select('return_to')
          .where('digest', '=', digestSecret(secret))
          .executeTakeFirst();
        assert.equal(row.return_to, '/app', evil);
      }
      // The cookie is only for the callback's path, HttpOnly, SameSite=Lax, and short-lived.
      const res = await ctx.app.inject({ method: 'GET', url: '/app/oidc/start' });
      assert.match(String(res.headers['set-cookie']), /hangar_sso=[0-9A-Za-z]{43}; Path=\/app\/oidc; HttpOnly; SameSite=Lax; Max-Age=600/);
      const authorization = new URL(String(res.headers.location));
      assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(authorization.searchParams.get('client_id'), CLIENT_ID);
      assert.ok(authorization.searchParams.get('state') && authorization.searchParams.get('nonce'));
    });
  },
  {
    HANGAR_OIDC_ISSUER: ISSUER,
    HANGAR_OIDC_CLIENT_ID: CLIENT_ID,
    HANGAR_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    HANGAR_OIDC_NAME: 'Test IdP',
  },
);

suite('single sign-on, not configured', (ctx) => {
  it('has no button and no SSO pages', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/app/sign-in' });
    assert.doesNotMatch(page.body, /Sign in with/);
    for (const url of ['/app/oidc/start', '/app/oidc/callback?code=x&state=y']) {
      assert.equal((await ctx.app.inject({ method: 'GET', url })).statusCode, 404, url);
    }
  });
});
