// `terraform login`'s OAuth pieces without a browser: the discovery document's login.v1, which
// authorization requests are refused and how, and the token endpoint (single-use codes bound to
// PKCE and the redirect URI, expiry, replays, OAuth errors). The whole flow with the real CLI and
// a browser is terraform-login-cli.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { csrfOf, signedIn, WebClient } from './helpers/web.ts';
import { Caller } from '../src/auth/caller.ts';
import {
  challengeOf,
  checkAuthorizationRequest,
  createTerraformLoginService,
  isProblem,
  LOGIN_CLIENT_ID,
  type AuthorizationRequest,
} from '../src/terraform-login/service.ts';

const FORM = 'application/x-www-form-urlencoded';
const REDIRECT = 'http://localhost:10003/login';

suite('terraform login (OAuth)', (ctx) => {
  // The shape Terraform sends: a UUID, a dot and nine digits.
  const verifier = () => `${randomUUID()}.${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;

  async function person() {
    const user = await ctx.user();
    const caller = new Caller(
      { kind: 'user', tokenId: 'sess-test', user: { id: user.id, username: user.username, isSiteAdmin: false, isServiceAccount: false } },
      ctx.services.teams.grants,
    );
    return { ...user, caller };
  }

  function request(v: string, redirectUri = REDIRECT): AuthorizationRequest {
    const checked = checkAuthorizationRequest({
      client_id: LOGIN_CLIENT_ID,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challengeOf(v),
      code_challenge_method: 'S256',
      state: 'some-state',
    });
    assert.ok(!isProblem(checked), JSON.stringify(checked));
    return checked;
  }

  const trade = (fields: Record<string, string>, contentType = FORM) =>
    ctx.request('POST', '/app/oauth2/token', { rawBody: contentType === FORM ? new URLSearchParams(fields).toString() : JSON.stringify(fields), contentType });

  const form = (code: string, v: string, extra: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    client_id: LOGIN_CLIENT_ID,
    code,
    redirect_uri: REDIRECT,
    code_verifier: v,
    ...extra,
  });

  it('offers login.v1 in service discovery: the client, the code grant, both endpoints and the ports', async () => {
    const res = await ctx.get('/.well-known/terraform.json');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body['login.v1'], {
      client: 'terraform-cli',
      grant_types: ['authz_code'],
      authz: '/app/oauth2/authorize',
      token: '/app/oauth2/token',
      ports: [10000, 10010],
    });
    assert.equal(res.body['tfe.v2'], '/api/v2/');
  });

  it('trades a code and its verifier once for a user token named after the login, which works against the API', async () => {
    const user = await person();
    const v = verifier();
    const code = await ctx.services.terraformLogin.issueCode(user.caller, request(v));
    const res = await trade(form(code, v));
    assert.equal(res.status, 200, res.raw);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.body.token_type, 'bearer');
    const token = res.body.access_token as string;
    const me = await ctx.get('/api/v2/account/details', token);
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, user.id);
    const list = await ctx.get(`/api/v2/users/${user.id}/authentication-tokens`, user.token);
    const made = list.body.data.find((t: any) => t.attributes.description?.startsWith('terraform login '));
    assert.ok(made, JSON.stringify(list.body));
    assert.match(made.attributes.description, /^terraform login \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    // The code is stored only as a digest, and neither it nor the token reaches a log.
    const rows = await (ctx.database.db as any).selectFrom('login_codes').selectAll().execute();
    assert.ok(!JSON.stringify(rows).includes(code));
    assert.ok(!ctx.logs.includes(code) && !ctx.logs.includes(token) && !ctx.logs.includes(v));
  });

  it('refuses a code presented a second time, and ends the token the first trade issued', async () => {
    const user = await person();
    const v = verifier();
    const code = await ctx.services.terraformLogin.issueCode(user.caller, request(v));
    const first = await trade(form(code, v));
    assert.equal(first.status, 200);
    const again = await trade(form(code, v));
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    assert.equal((await ctx.get('/api/v2/account/details', first.body.access_token)).status, 401);
  });

  it('refuses a wrong verifier, another redirect URI or client, and the code is used up by the attempt', async () => {
    const user = await person();
    const v = verifier();
    const code = await ctx.services.terraformLogin.issueCode(user.caller, request(v));
    const wrong = await trade(form(code, verifier()));
    assert.equal(wrong.status, 400);
    assert.deepEqual(Object.keys(wrong.body).sort(), ['error', 'error_description']);
    assert.equal(wrong.body.error, 'invalid_grant');
    assert.equal((await trade(form(code, v))).body.error, 'invalid_grant');

    const v2 = verifier();
    const code2 = await ctx.services.terraformLogin.issueCode(user.caller, request(v2));
    const moved = await trade(form(code2, v2, { redirect_uri: 'http://localhost:10004/login' }));
    assert.equal(moved.body.error, 'invalid_grant');

    const v3 = verifier();
    const code3 = await ctx.services.terraformLogin.issueCode(user.caller, request(v3));
    const client = await trade(form(code3, v3, { client_id: 'someone-else' }));
    assert.equal(client.status, 401);
    assert.equal(client.body.error, 'invalid_client');
    // Not presented (the client was refused first): the right request still works.
    assert.equal((await trade(form(code3, v3))).status, 200);

    // A verifier that is not RFC 7636's shape, even if its digest matched.
    const short = 'abc';
    const code4 = await ctx.services.terraformLogin.issueCode(user.caller, request(`${short}`.padEnd(43, 'x')));
    assert.equal((await trade(form(code4, short))).body.error, 'invalid_grant');
  });

  it('refuses an expired code', async () => {
    const user = await person();
    let now = Date.now();
    const service = createTerraformLoginService({ database: ctx.database, tokens: ctx.services.tokens, clock: () => now });
    const v = verifier();
    const code = await service.issueCode(user.caller, request(v));
    now += 2 * 60_000 + 1;
    await assert.rejects(service.exchange(form(code, v)), (e: any) => e.error === 'invalid_grant');
  });

  it('answers malformed requests with OAuth errors: grant type, missing fields, unknown codes, other bodies', async () => {
    const unsupported = await trade({ grant_type: 'password', client_id: LOGIN_CLIENT_ID, username: 'a', password: 'b' });
    assert.equal(unsupported.status, 400);
    assert.equal(unsupported.body.error, 'unsupported_grant_type');
    const missing = await trade({ grant_type: 'authorization_code', client_id: LOGIN_CLIENT_ID, code: 'x' });
    assert.equal(missing.body.error, 'invalid_request');
    const unknown = await trade(form('no-such-code', verifier()));
    assert.equal(unknown.body.error, 'invalid_grant');
    const json = await trade(form('x', verifier()), 'application/json');
    assert.equal(json.status, 415);
    assert.equal(json.body.error, 'invalid_request');
    const long = await trade(form('x'.repeat(5000), verifier()));
    assert.equal(long.status, 400);
    assert.equal(long.body.error, 'invalid_request');
    for (const res of [unsupported, missing, unknown, json, long]) assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('issues codes only for redirect URIs on a localhost port of the discovery range, and tells the person, not the URI, when not', () => {
    const base = { client_id: LOGIN_CLIENT_ID, response_type: 'code', code_challenge: challengeOf(verifier()), code_challenge_method: 'S256', state: 's' };
    for (const uri of [
      'https://evil.example/login',
      'http://evil.example:10000/login',
      'http://localhost.evil.example:10000/login',
      'http://localhost:9999/login',
      'http://localhost:10011/login',
      'http://localhost:10000/elsewhere',
      'http://localhost:10000/login?next=https://evil.example',
      'http://localhost:10000/login#x',
      'http://user@localhost:10000/login',
      'http://localhost:10000@evil.example/login',
      'javascript:alert(1)',
      '',
    ]) {
      const r = checkAuthorizationRequest({ ...base, redirect_uri: uri });
      assert.ok(isProblem(r) && r.redirect === false, `${uri} accepted: ${JSON.stringify(r)}`);
    }
    for (const uri of ['http://localhost:10000/login', 'http://127.0.0.1:10010/login'])
      assert.ok(!isProblem(checkAuthorizationRequest({ ...base, redirect_uri: uri })), uri);
    const unknownClient = checkAuthorizationRequest({ ...base, client_id: 'other', redirect_uri: REDIRECT });
    assert.ok(isProblem(unknownClient) && unknownClient.redirect === false);
    // With a good redirect URI, other problems go back to Terraform there.
    for (const [change, error] of [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ] as const) {
      const r = checkAuthorizationRequest({ ...base, redirect_uri: REDIRECT, ...change });
      assert.ok(isProblem(r) && r.redirect === true && r.error === error && r.state === 's', JSON.stringify(r));
    }
  });

  it('issues codes to people only', async () => {
    const org = await ctx.organization();
    const asOrganization = new Caller(
      { kind: 'organization', tokenId: 'at-x', organizationId: 'org-x', organizationName: org.name, serviceUserId: 'user-x' },
      ctx.services.teams.grants,
    );
    await assert.rejects(ctx.services.terraformLogin.issueCode(asOrganization, request(verifier())), (e: any) => e.error === 'access_denied');
  });

  it('shows an authorization page that names the client, the account and the host, and needs a click', async () => {
    const v = verifier();
    const query = new URLSearchParams({
      client_id: LOGIN_CLIENT_ID,
      redirect_uri: REDIRECT,
      response_type: 'code',
      code_challenge: challengeOf(v),
      code_challenge_method: 'S256',
      state: 'st"<ate>',
    });
    const page = `/app/oauth2/authorize?${query}`;
    // Without a session: sign in first, then back here.
    const anonymous = await new WebClient(ctx).get(page);
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.location, `/app/sign-in?return_to=${encodeURIComponent(page)}`);

    const { user, client } = await signedIn(ctx);
    const shown = await client.get(page);
    assert.equal(shown.status, 200);
    assert.match(shown.body, /Terraform CLI/);
    assert.match(shown.body, new RegExp(`act\\s+as\\s+<strong>${user.username}</strong>`));
    assert.ok(shown.body.includes('value="st&quot;&lt;ate&gt;"'), 'the state is escaped');
    // Its form may lead to Terraform's listener, and nowhere else.
    assert.match(String(shown.headers['content-security-policy']), /form-action 'self' http:\/\/localhost:10003;/);
    // Nothing happens without the form's token.
    const forged = await client.post('/app/oauth2/authorize', { ...Object.fromEntries(query), decision: 'authorize' }, { csrf: null });
    assert.equal(forged.status, 403);

    const cancelled = await client.post('/app/oauth2/authorize', { ...Object.fromEntries(query), decision: 'cancel' }, { csrf: csrfOf(shown.body) });
    assert.equal(cancelled.status, 303);
    const refusal = new URL(cancelled.location!);
    assert.equal(refusal.origin + refusal.pathname, REDIRECT);
    assert.equal(refusal.searchParams.get('error'), 'access_denied');
    assert.equal(refusal.searchParams.get('state'), 'st"<ate>');

    const authorized = await client.post('/app/oauth2/authorize', { ...Object.fromEntries(query), decision: 'authorize' }, { csrf: csrfOf(shown.body) });
    assert.equal(authorized.status, 303);
    const answer = new URL(authorized.location!);
    assert.equal(answer.origin + answer.pathname, REDIRECT);
    const res = await trade(form(answer.searchParams.get('code')!, v));
    assert.equal(res.status, 200, res.raw);
    assert.equal((await ctx.get('/api/v2/account/details', res.body.access_token)).body.data.id, user.id);
  });

  it('refuses on the page itself, never by redirect, a request for a foreign redirect URI or another client', async () => {
    const { client } = await signedIn(ctx);
    for (const [redirect_uri, client_id] of [
      ['https://evil.example/login', LOGIN_CLIENT_ID],
      ['http://localhost:8080/login', LOGIN_CLIENT_ID],
      [REDIRECT, 'evil'],
    ]) {
      const query = new URLSearchParams({
        client_id: client_id!,
        redirect_uri: redirect_uri!,
        response_type: 'code',
        code_challenge: challengeOf(verifier()),
        code_challenge_method: 'S256',
      });
      const res = await client.get(`/app/oauth2/authorize?${query}`);
      assert.equal(res.status, 400, redirect_uri);
      assert.equal(res.location, undefined);
      assert.match(res.body, /Nothing was authorized/);
      const posted = await client.post('/app/oauth2/authorize', { ...Object.fromEntries(query), decision: 'authorize' }, { from: '/app/organizations' });
      assert.equal(posted.status, 400);
      assert.equal(posted.location, undefined);
    }
    // A good redirect URI without PKCE: back to Terraform with the error.
    const noPkce = new URLSearchParams({ client_id: LOGIN_CLIENT_ID, redirect_uri: REDIRECT, response_type: 'code', state: 's' });
    const res = await client.get(`/app/oauth2/authorize?${noPkce}`);
    assert.equal(res.status, 303);
    assert.equal(new URL(res.location!).searchParams.get('error'), 'invalid_request');
  });
});
