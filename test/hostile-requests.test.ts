// Requests meant to hurt, each answered with a JSON:API error at little cost: bodies sent to URLs
// no route serves, absurdly deep JSON, NUL characters hidden in escapes, and what Node's HTTP
// parser itself refuses.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH } from '../src/jsonapi/json-text.ts';
import { assertError } from './helpers/assert.ts';
import { createAgentToken, createPool } from './helpers/agents.ts';
import { suite, TestContext, unique } from './helpers/harness.ts';
import { createPolicySet, parameterBody } from './helpers/policy-sets.ts';
import { exchange, type RawResponse } from './helpers/raw-http.ts';

const MiB = 1024 * 1024;
const NOT_FOUND = { errors: [{ status: '404', title: 'not found' }] };

/** The head of a request announcing a body of `length` bytes (or a chunked one). */
function head(method: string, url: string, length: number | 'chunked', extra = ''): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `${method} ${url} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/vnd.api+json\r\n${framing}\r\n${extra}\r\n`;
}

function assertJsonApiError(res: RawResponse, status: number, mediaType = 'application/vnd.api+json') {
  assert.equal(res.status, status, res.body);
  assert.match(res.headers['content-type'] ?? '', new RegExp(`^${mediaType.replace(/[+.]/g, '\\$&')}`));
  const body = JSON.parse(res.body);
  assert.equal(body.errors?.[0]?.status, String(status), res.body);
  return body;
}

/** A test app listening on a free port of 127.0.0.1 for the tests declared in `fn`. */
function overSocket(fn: (port: () => number) => void) {
  const ctx = new TestContext('sqlite');
  let port = 0;
  before(async () => {
    await ctx.start();
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  after(() => ctx.stop());
  fn(() => port);
}

describe('bodies sent to URLs no route serves', () =>
  overSocket((port) => {
    it('answers 404 before the body has arrived, for every method that carries one', { timeout: 30_000 }, async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const url of ['/api/v2/no-such-route', '/api/v2/organizations/acme/no-such-thing', '/elsewhere']) {
          // A megabyte announced, a kilobyte sent: a server that waited for the body would never answer.
          const res = await exchange(port(), `${head(method, url, MiB)}{"data":"${'x'.repeat(1024)}`);
          res.socket.destroy();
          assert.deepEqual(assertJsonApiError(res, 404), NOT_FOUND, `${method} ${url}`);
        }
      }
      const chunked = await exchange(port(), `${head('POST', '/api/v2/nothing', 'chunked')}400\r\n${'x'.repeat(1024)}\r\n`);
      chunked.socket.destroy();
      assertJsonApiError(chunked, 404);
      // The agent protocol's scope answers in its own media type.
      const agent = await exchange(port(), `${head('POST', '/api/agent/no-such-route', MiB)}{"name":`);
      agent.socket.destroy();
      assertJsonApiError(agent, 404, 'application/json');
    });

    it('answers 20 parallel 1 MiB bodies to unknown routes without waiting for them, and ping still answers', { timeout: 60_000 }, async () => {
      // Every body stops one byte short: each 404 proves its body was never waited for, let alone parsed.
      const body = Buffer.alloc(MiB - 1, 0x61);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => exchange(port(), Buffer.concat([Buffer.from(head(i % 2 ? 'PUT' : 'POST', `/api/v2/unknown-${i}`, MiB)), body]))),
      );
      try {
        for (const res of responses) assert.deepEqual(assertJsonApiError(res, 404), NOT_FOUND);
        // Meanwhile, with all twenty connections still open and their requests unfinished:
        const ping = await fetch(`http://127.0.0.1:${port()}/api/v2/ping`);
        assert.equal(ping.status, 204);
      } finally {
        for (const res of responses) res.socket.destroy();
      }
    });
  }));

describe("what Node's HTTP parser and Fastify's router refuse", () =>
  overSocket((port) => {
    const cases: Array<[string, string, number]> = [
      ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
      ['an invalid method', 'G@T /api/v2/ping HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
      ['an invalid header name', 'GET /api/v2/ping HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n', 400],
      ['a header larger than the server accepts', `GET /api/v2/ping HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(32 * 1024)}\r\n\r\n`, 431],
      ['broken chunked framing', `${head('POST', '/api/v2/organizations', 'chunked')}ZZ\r\n`, 400],
      ['an invalid Content-Length', 'POST /api/v2/organizations HTTP/1.1\r\nHost: localhost\r\nContent-Length: ten\r\n\r\n', 400],
      ['HTTP/1.1 without Host', 'GET /api/v2/ping HTTP/1.1\r\n\r\n', 400],
      ['a malformed percent-encoding', 'GET /api/v2/organizations/%E0%A4%A HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    ];
    for (const [what, request, status] of cases) {
      it(`answers ${what} with a JSON:API ${status}`, { timeout: 10_000 }, async () => {
        const res = await exchange(port(), request);
        res.socket.destroy();
        const body = assertJsonApiError(res, status);
        assert.equal(typeof body.errors[0].title, 'string');
      });
    }
  }));

/** `[[[…]]]` nested `levels` deep. */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

suite('over-deep JSON', (ctx) => {
  /** An organization document whose unmodeled `deep` attribute brings the whole to `depth` levels. */
  const organization = (depth: number) =>
    `{"data":{"type":"organizations","attributes":{"name":"${unique('deep')}","email":"d@example.test","deep":${nested(depth - 3)}}}}`;

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more with 400, the same on every database`, async () => {
    const user = await ctx.user();
    const fits = await ctx.request('POST', '/api/v2/organizations', { token: user.token, rawBody: organization(MAX_JSON_DEPTH) });
    assert.equal(fits.status, 201, fits.raw);
    for (const depth of [MAX_JSON_DEPTH + 1, 10_000, 200_000]) {
      const res = await ctx.request('POST', '/api/v2/organizations', { token: user.token, rawBody: organization(depth) });
      const error = assertError(res, 400);
      assert.match(error.detail ?? '', new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
    }
  });

  it('counts only brackets outside strings, and lets escaped quotes end nothing', async () => {
    const user = await ctx.user();
    const text = `${'['.repeat(5000)}\\"${'{'.repeat(5000)}`;
    const rawBody = `{"data":{"type":"organizations","attributes":{"name":"${unique('str')}","email":"s@example.test","note":"${text}"}}}`;
    const res = await ctx.request('POST', '/api/v2/organizations', { token: user.token, rawBody });
    assert.equal(res.status, 201, res.raw);
  });

  it('refuses it on the plain-JSON agent endpoints too, and never parses it for an unknown route', async () => {
    const org = await ctx.organization();
    const pool = await createPool(ctx, org);
    const agentToken = await createAgentToken(ctx, pool.id, org.owner.token);
    const agent = await ctx.request('POST', '/api/agent/register', {
      token: agentToken.secret,
      rawBody: `{"name":"a","x":${nested(10_000)}}`,
      contentType: 'application/json',
    });
    assert.equal(agent.status, 400, agent.raw);
    assert.match(String(agent.headers['content-type']), /^application\/json/);
    assertError(await ctx.request('POST', '/api/v2/no-such-route', { token: org.owner.token, rawBody: nested(10_000) }), 404);
  });
});

suite('NUL characters in JSON bodies', (ctx) => {
  it('refuses the escape \\u0000 but accepts an escaped backslash followed by "u0000" as text', async () => {
    const org = await ctx.organization();
    const set = await createPolicySet(ctx, org);
    const post = (value: string) =>
      ctx.request('POST', `/api/v2/policy-sets/${set.id}/parameters`, {
        token: org.owner.token,
        rawBody: JSON.stringify(parameterBody({ key: unique('k'), value: 'placeholder' })).replace('"placeholder"', `"${value}"`),
      });
    // JSON text → the string it means: \\u0000 is a backslash and "u0000"; \\\\u0000 two backslashes and "u0000".
    const cases: Array<[string, string]> = [
      ['C:\\\\u0000dir', 'C:\\u0000dir'],
      ['\\\\\\\\u0000', '\\\\u0000'],
    ];
    for (const [text, meant] of cases) {
      const res = await post(text);
      assert.equal(res.status, 201, `${text}: ${res.raw}`);
      assert.equal(res.body.data.attributes.value, meant);
    }
    // An escape whose backslash is itself preceded by an escaped backslash is a real NUL.
    for (const text of ['a\\u0000b', '\\\\\\u0000', '\\u0000']) assertError(await post(text), 422, '/data/attributes/value');
    // In a member name, the pointer names the object holding it.
    const key = await ctx.request('POST', `/api/v2/policy-sets/${set.id}/parameters`, {
      token: org.owner.token,
      rawBody: `{"data":{"type":"vars","attributes":{"key":"k","value":"v","category":"policy-set","x\\u0000":1}}}`,
    });
    assertError(key, 422, '/data/attributes');
  });
});
