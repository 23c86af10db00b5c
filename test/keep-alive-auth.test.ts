// Clients keep a connection open and send the same token on every request, and Hangar digests
// that token once per connection (auth/plugin.ts). These requests go over one real kept-alive
// connection, so that what the connection remembers is exercised: a token revoked meanwhile must
// be refused on it, and another token sent on it must stand for its own caller.
import assert from 'node:assert/strict';
import http from 'node:http';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';

interface Answer {
  status: number;
  reused: boolean;
  body: any;
}

suite('authentication on a kept-alive connection', (ctx) => {
  it('asks the token cache on every request: a revoked token is refused, another token is its own caller', async () => {
    const address = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    // One socket, kept open between requests.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, token: string, body?: unknown) =>
      new Promise<Answer>((resolve, reject) => {
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        if (body !== undefined) headers['content-type'] = 'application/vnd.api+json';
        const req = http.request(`${address}${path}`, { method, agent, headers }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, body: text ? JSON.parse(text) : null }));
        });
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
    try {
      const alice = await ctx.user();
      const bob = await ctx.user();
      const created = await send('POST', `/api/v2/users/${alice.id}/authentication-tokens`, alice.token, {
        data: { type: 'authentication-tokens', attributes: { description: 'kept' } },
      });
      assert.equal(created.status, 201);
      const secret: string = created.body.data.attributes.token;
      const tokenId: string = created.body.data.id;

      const first = await send('GET', '/api/v2/account/details', secret);
      assert.equal(first.status, 200);
      assert.equal(first.body.data.id, alice.id);
      const second = await send('GET', '/api/v2/account/details', secret);
      assert.deepEqual([second.status, second.reused], [200, true], 'the second request rode the same connection');

      // Another token on the same connection is its own caller, and then the first again.
      const asBob = await send('GET', '/api/v2/account/details', bob.token);
      assert.deepEqual([asBob.status, asBob.reused, asBob.body.data.id], [200, true, bob.id]);
      assert.equal((await send('GET', '/api/v2/account/details', secret)).body.data.id, alice.id);

      // Revoked (through another token on the same connection), it is refused on it at once.
      assert.equal((await send('DELETE', `/api/v2/authentication-tokens/${tokenId}`, alice.token)).status, 204);
      const refused = await send('GET', '/api/v2/account/details', secret);
      assert.deepEqual([refused.status, refused.reused], [401, true]);
      // Text that cannot be a token is refused on it too, before and after a good one.
      assert.equal((await send('GET', '/api/v2/account/details', 'not-a-token')).status, 401);
      assert.equal((await send('GET', '/api/v2/account/details', alice.token)).status, 200);
      assert.equal((await send('GET', '/api/v2/account/details', 'not-a-token')).status, 401);
      // What the connection remembered never reaches a log line.
      assert.ok(!ctx.logs.includes(secret), 'the secret is never logged');
    } finally {
      agent.destroy();
    }
  });
});
