// The sign-in form's defences: a session planted before sign-in stops working (fixation), the
// return-to address never leads off the UI (open redirects), guessing one account's password is
// throttled, what people type comes back as text; and changing one's password ends the other sessions.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { csrfOf, PASSWORD, signedIn, WebClient } from './helpers/web.ts';
import { safeReturnTo } from '../src/web/return-to.ts';
import { THROTTLE } from '../src/sessions/service.ts';
import { SESSION_COOKIE } from '../src/auth/session.ts';

const OFF_SITE = [
  'https://evil.example/',
  '//evil.example/app',
  '/\\evil.example',
  '\\\\evil.example',
  'javascript:alert(1)',
  'http:/app',
  '/app\t/x',
  '/api/v2/organizations',
  '/%2F%2Fevil.example',
  '',
];

describe('the return-to address', () => {
  it('follows only paths of the web UI, and drops everything else for the start page', () => {
    for (const given of OFF_SITE) assert.equal(safeReturnTo(given), given === '/%2F%2Fevil.example' ? '/app' : '/app', given);
    assert.equal(safeReturnTo('/app/acme/projects?q=a%20b'), '/app/acme/projects?q=a%20b');
    assert.equal(safeReturnTo('/app/../docs'), '/app');
    assert.equal(safeReturnTo('/app'), '/app');
  });
});

suite('web: sign-in security', (ctx) => {
  async function person() {
    const user = await ctx.user();
    await ctx.services.users.setPassword(user.username, PASSWORD);
    return user;
  }

  it('comes back to where the person was going, and only within the UI', async () => {
    const user = await person();
    const client = new WebClient(ctx);
    const res = await client.signIn(user.username, PASSWORD, '/app/organizations?q=x');
    assert.equal(res.location, '/app/organizations?q=x');
    for (const evil of OFF_SITE) {
      const c = new WebClient(ctx);
      const form = await c.get(`/app/sign-in?return_to=${encodeURIComponent(evil)}`);
      assert.match(form.body, /name="return_to" value="\/app"/, evil);
      const signed = await c.signIn(user.username, PASSWORD, evil);
      assert.equal(signed.status, 303);
      assert.equal(signed.location, '/app', evil);
    }
  });

  it('gives a new session at sign-in: a cookie planted before stops working', async () => {
    const attacker = await signedIn(ctx);
    const planted = attacker.client.cookies.get(SESSION_COOKIE)!;
    const victim = await person();
    const client = new WebClient(ctx);
    const signInForm = await client.get('/app/sign-in');
    client.cookies.set(SESSION_COOKIE, planted);
    const res = await client.post('/app/sign-in', { username: victim.username, password: PASSWORD }, { csrf: csrfOf(signInForm.body) });
    assert.equal(res.status, 303);
    const now = client.cookies.get(SESSION_COOKIE)!;
    assert.notEqual(now, planted);
    // The planted session is over: whoever holds it is signed out.
    const stale = await attacker.client.get('/app/organizations');
    assert.equal(stale.status, 303);
    assert.match(stale.location!, /^\/app\/sign-in/);
    assert.match((await client.get('/app/account')).body, new RegExp(victim.username));
    // The cookie's attributes.
    const form = await new WebClient(ctx).get('/app/sign-in');
    const again = await ctx.app.inject({
      method: 'POST',
      url: '/app/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: String(form.headers['set-cookie']).split(';')[0]! },
      payload: new URLSearchParams({ _csrf: csrfOf(form.body), username: victim.username, password: PASSWORD }).toString(),
    });
    assert.match(String(again.headers['set-cookie']), /^hangar_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.equal(again.headers['cache-control'], 'no-store');
  });

  it('throttles guessing one account’s password, even with the right one after', async () => {
    const user = await person();
    const client = new WebClient(ctx, '192.0.2.10');
    for (let i = 0; i < THROTTLE.accountFailures; i++) {
      const res = await client.signIn(user.username, `wrong password ${i}!`);
      assert.equal(res.status, 401);
      assert.match(res.body, /The username or password is incorrect/);
      assert.match(res.body, new RegExp(`value="${user.username}"`));
    }
    const blocked = await new WebClient(ctx, '192.0.2.11').signIn(user.username);
    assert.equal(blocked.status, 429);
    assert.match(blocked.body, /Too many failed sign-ins/);
    assert.equal(blocked.headers['set-cookie'] === undefined || !String(blocked.headers['set-cookie']).includes(SESSION_COOKIE), true);
  });

  it('shows a typed username with markup as text', async () => {
    const client = new WebClient(ctx);
    const res = await client.signIn(`<script>alert("x")</script>'"`, 'whatever at all');
    assert.equal(res.status, 401);
    assert.ok(!res.body.includes('<script>alert'));
    assert.ok(res.body.includes('value="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;"'));
  });

  it('changes a password with the current one, ending the other sessions', async () => {
    const { user, client } = await signedIn(ctx);
    const elsewhere = new WebClient(ctx);
    await elsewhere.signIn(user.username);
    const wrong = await client.post(
      '/app/account/password',
      { current: 'not it at all', password: 'a new long password', confirmation: 'a new long password' },
      { from: '/app/account' },
    );
    assert.equal(wrong.status, 422);
    const differ = await client.post(
      '/app/account/password',
      { current: PASSWORD, password: 'a new long password', confirmation: 'another one' },
      { from: '/app/account' },
    );
    assert.equal(differ.status, 422);
    const short = await client.post('/app/account/password', { current: PASSWORD, password: 'short', confirmation: 'short' }, { from: '/app/account' });
    assert.equal(short.status, 422);
    assert.match(short.body, /12/);
    const changed = await client.post(
      '/app/account/password',
      { current: PASSWORD, password: 'a new long password', confirmation: 'a new long password' },
      { from: '/app/account' },
    );
    assert.equal(changed.status, 303);
    assert.equal((await client.get('/app/account')).status, 200);
    assert.equal((await elsewhere.get('/app/account')).status, 303);
    assert.equal((await new WebClient(ctx).signIn(user.username, 'a new long password')).status, 303);
    assert.ok(!ctx.logs.includes('a new long password'));
  });
});
