// Every page of the web UI, walked from app.pageTable so that a new page cannot escape: without a
// session it sends the person to sign in (and back); with one, a POST without the form's CSRF
// token is refused before anything happens; every answer carries the security headers.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { signedIn, WebClient } from './helpers/web.ts';
import { CONTENT_SECURITY_POLICY } from '../src/web/plugin.ts';

/** Pages for anyone: the site's root, the sign-in form, and the static files. */
const ANONYMOUS = new Set(['GET /', 'GET /app/sign-in', 'POST /app/sign-in', 'GET /app/assets/:name', 'GET /app/oidc/start', 'GET /app/oidc/callback']);

const concrete = (url: string) => url.replace(/:[a-z_]+/g, 'x').replace(/\*$/, 'x');

suite('web pages', (ctx) => {
  it('keeps pages out of the API route table and lists them in the page table', () => {
    const pages = ctx.app.pageTable.map((r) => `${r.method} ${r.url}`);
    assert.ok(pages.includes('GET /app/organizations'), pages.join('\n'));
    assert.ok(!ctx.app.routeTable.some((r) => r.url === '/app/organizations'));
  });

  it('sends a person without a session to sign in, keeping where they were going', async () => {
    const anonymous = new WebClient(ctx);
    for (const { method, url } of ctx.app.pageTable) {
      if (ANONYMOUS.has(`${method} ${url}`)) continue;
      const target = concrete(url);
      const res = method === 'GET' ? await anonymous.get(target) : await anonymous.post(target, {}, { csrf: null });
      assert.equal(res.status, 303, `${method} ${url}: ${res.status}`);
      const expected = method === 'GET' ? `/app/sign-in?return_to=${encodeURIComponent(target)}` : '/app/sign-in';
      assert.equal(res.location, expected, `${method} ${url}`);
      assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    }
  });

  it('refuses every POST without the form token (403), and with another session’s token', async () => {
    const { client } = await signedIn(ctx);
    const other = (await signedIn(ctx)).client;
    const othersToken = /name="_csrf" value="([^"]*)"/.exec((await other.get('/app/organizations')).body)![1]!;
    for (const { method, url } of ctx.app.pageTable) {
      if (method !== 'POST' || ANONYMOUS.has(`${method} ${url}`)) continue;
      for (const csrf of [null, othersToken, '']) {
        const res = await client.post(concrete(url), {}, { csrf });
        assert.equal(res.status, 403, `${method} ${url} with ${csrf === null ? 'no token' : 'a wrong token'}: ${res.status}`);
        assert.match(res.body, /Form expired/);
      }
    }
    // The sign-in form too: its token is the one its own page set.
    const stranger = new WebClient(ctx);
    const res = await stranger.post('/app/sign-in', { username: 'x', password: 'y' }, { csrf: 'made-up' });
    assert.equal(res.status, 403);
  });

  it('sends the security headers on pages, assets and errors', async () => {
    const { client } = await signedIn(ctx);
    for (const url of ['/app/organizations', '/app/sign-in', '/app/no-such-page/at/all']) {
      const res = await client.get(url);
      assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY, url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['x-frame-options'], 'DENY', url);
      assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval/);
      assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
    }
    const missing = await client.get('/app/no-such-page/at/all');
    assert.equal(missing.status, 404);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
  });

  it('serves each asset with a content hash, a year of cache and precompressed bodies', async () => {
    const { client } = await signedIn(ctx);
    const page = (await client.get('/app/organizations')).body;
    const urls = [...page.matchAll(/(?:href|src)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.equal(urls.length, 2, page);
    for (const url of urls) {
      const plain = await ctx.app.inject({ method: 'GET', url });
      assert.equal(plain.statusCode, 200);
      assert.match(String(plain.headers['cache-control']), /max-age=31536000, immutable/);
      const gz = await ctx.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      assert.equal(gz.headers['content-encoding'], 'br');
      assert.ok(gz.rawPayload.length < plain.rawPayload.length);
      const again = await ctx.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(plain.headers.etag) } });
      assert.equal(again.statusCode, 304);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/app/assets/app.0000.css' })).statusCode, 404);
  });

  it('redirects the site root to the start page', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, '/app');
  });
});
