// Browser sessions: signing in with a form, the cookie's attributes, signing out, idle and
// absolute ends, revocation, fixation, and throttled guessing per account and per address.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite, unique, type TestContext } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { clearedSessionCookie, sessionCookie } from '../src/auth/session.ts';
import { digestSecret } from '../src/auth/secrets.ts';
import { THROTTLE } from '../src/sessions/service.ts';

const PASSWORD = 'a perfectly long password';
const FORM = 'application/x-www-form-urlencoded';

suite('sessions', (ctx) => {
  async function person(): Promise<{ id: string; username: string }> {
    const user = await ctx.user();
    await ctx.services.users.setPassword(user.username, PASSWORD);
    return user;
  }

  async function signIn(username: string, password: string, remoteAddress = '127.0.0.1', cookie?: string) {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/session',
      headers: { 'content-type': FORM, ...(cookie ? { cookie } : {}) },
      payload: new URLSearchParams({ username, password }).toString(),
      remoteAddress,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined, raw: res.body };
  }
  const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;
  const whoami = (cookie?: string) => ctx.request('GET', '/app/session', { headers: cookie ? { cookie } : {} });

  it('signs in with a form: 204 and an HttpOnly, SameSite=Lax cookie for the whole site that opens the session', async () => {
    const user = await person();
    const res = await signIn(user.username, PASSWORD);
    assert.equal(res.status, 204, res.raw);
    const set = String(res.headers['set-cookie']);
    assert.match(set, /^hangar_session=[0-9A-Za-z]{43}; Path=\/; HttpOnly; SameSite=Lax$/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const cookie = cookieOf(res);
    const shown = await whoami(cookie);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.type, 'sessions');
    assert.equal(shown.body.data.attributes.username, user.username);
    assert.deepEqual(shown.body.data.relationships.user.data, { id: user.id, type: 'users' });
    // Only the secret's digest is stored, and the secret is never logged.
    const secret = cookie.split('=')[1]!;
    const row = await (ctx.database.db as any).selectFrom('sessions').selectAll().where('user_id', '=', user.id).executeTakeFirst();
    assert.equal(row.digest, digestSecret(secret));
    assert.ok(!JSON.stringify(row).includes(secret));
    assert.ok(!ctx.logs.includes(secret) && !ctx.logs.includes(PASSWORD));
    // Under HTTPS the cookie is Secure too.
    assert.match(sessionCookie(secret, true), /; Secure$/);
    assert.match(clearedSessionCookie(true), /Max-Age=0/);
  });

  it('answers a wrong password and an unknown user alike, and sets no cookie', async () => {
    const user = await person();
    const wrong = await signIn(user.username, 'not the password at all');
    const unknown = await signIn(unique('nobody'), PASSWORD);
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 401);
      assert.equal(res.headers['set-cookie'], undefined);
    }
    assert.deepEqual(wrong.body, unknown.body);
    assert.equal(wrong.body.errors[0].detail, 'The username or password is incorrect');
    // A user without a password cannot sign in at all.
    const bare = await ctx.user();
    assert.equal((await signIn(bare.username, '')).status, 422);
    assert.equal((await signIn(bare.username, PASSWORD)).status, 401);
  });

  it('refuses other bodies and missing fields, and anyone without a live session', async () => {
    const json = await ctx.request('POST', '/app/session', { body: { username: 'a', password: 'b' } });
    assertError(json, 415);
    const missing = await ctx.app.inject({ method: 'POST', url: '/app/session', headers: { 'content-type': FORM }, payload: 'username=someone' });
    assert.equal(missing.statusCode, 422, missing.body);
    assertError(await whoami(), 401);
    assertError(await whoami('hangar_session=nonsense'), 401);
    assertError(await whoami(`hangar_session=${'A'.repeat(43)}`), 401);
    // A bearer token is not a session.
    const user = await ctx.user();
    assertError(await ctx.request('GET', '/app/session', { token: user.token }), 401);
  });

  it('signs out: the session ends and the cookie is removed; signing in never keeps a session the browser brought', async () => {
    const user = await person();
    const first = cookieOf(await signIn(user.username, PASSWORD));
    const second = cookieOf(await signIn(user.username, PASSWORD, '127.0.0.1', first));
    assertError(await whoami(first), 401, undefined);
    assertStatus(await whoami(second), 200);
    const out = await ctx.request('DELETE', '/app/session', { headers: { cookie: second } });
    assertStatus(out, 204);
    assert.match(String(out.headers['set-cookie']), /^hangar_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0/);
    assertError(await whoami(second), 401);
    // Signing out without a session is harmless.
    assertStatus(await ctx.request('DELETE', '/app/session'), 204);
  });

  it('ends a session idle too long, one past its absolute end, and every one of a user revoked elsewhere', async () => {
    const user = await person();
    const db = ctx.database.db as any;
    const long = new Date(Date.now() - (ctx.services.sessions.options.idleMinutes + 1) * 60_000).toISOString();
    const idle = cookieOf(await signIn(user.username, PASSWORD));
    const digest = (cookie: string) => digestSecret(cookie.split('=')[1]!);
    await db.updateTable('sessions').set({ last_seen_at: long }).where('digest', '=', digest(idle)).execute();
    assertError(await whoami(idle), 401);
    const old = cookieOf(await signIn(user.username, PASSWORD));
    await db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('digest', '=', digest(old))
      .execute();
    assertError(await whoami(old), 401);
    const a = cookieOf(await signIn(user.username, PASSWORD));
    const b = cookieOf(await signIn(user.username, PASSWORD));
    assertStatus(await whoami(a), 200);
    await ctx.services.sessions.revokeAllOfUser(user.id);
    assertError(await whoami(a), 401);
    assertError(await whoami(b), 401);
  });

  it(`refuses an account after ${THROTTLE.accountFailures} failed sign-ins, even with the right password; other accounts still sign in`, async () => {
    const user = await person();
    const other = await person();
    for (let i = 0; i < THROTTLE.accountFailures; i++) assert.equal((await signIn(user.username, `wrong guess ${i}`, '10.0.0.1')).status, 401);
    const refused = await signIn(user.username, PASSWORD, '10.0.0.2');
    assert.equal(refused.status, 429, refused.raw);
    assert.match(refused.body.errors[0].detail, /Too many failed sign-ins/);
    assert.equal((await signIn(user.username.toUpperCase(), PASSWORD, '10.0.0.3')).status, 429, 'the username in another case is the same account');
    assert.equal((await signIn(other.username, PASSWORD, '10.0.0.1')).status, 204);
  });

  it(`refuses an address after ${THROTTLE.addressFailures} failed sign-ins, whichever accounts it tried`, async () => {
    const user = await person();
    for (let i = 0; i < THROTTLE.addressFailures; i++) assert.equal((await signIn(unique('guess'), PASSWORD, '10.9.9.9')).status, 401);
    assert.equal((await signIn(user.username, PASSWORD, '10.9.9.9')).status, 429);
    assert.equal((await signIn(user.username, PASSWORD, '10.9.9.8')).status, 204);
  });
});
