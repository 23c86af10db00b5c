// A state version's body (up to ~27 MiB of base64) is read only for a caller who may write the
// workspace's state: anyone else is answered before the body has arrived, so a read-only member
// cannot make Hangar buffer and parse megabytes for a request that was never going to be allowed.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { dialects, TestContext } from './helpers/harness.ts';
import { createProject, createWorkspace, memberWithAccess } from './helpers/projects.ts';
import { exchange } from './helpers/raw-http.ts';

const MiB = 1024 * 1024;

for (const dialect of dialects()) {
  describe(`state version bodies are authorized before they are read [${dialect}]`, () => {
    const ctx = new TestContext(dialect);
    let port = 0;
    before(async () => {
      await ctx.start();
      await ctx.app.listen({ port: 0, host: '127.0.0.1' });
      port = (ctx.app.server.address() as AddressInfo).port;
    });
    after(async () => {
      ctx.app.server.closeAllConnections();
      await ctx.stop();
    });

    /** Announces 20 MiB, sends one KiB of it, and returns the answer that came without the rest. */
    async function partial(workspaceId: string, token: string | null) {
      const head = [
        `POST /api/v2/workspaces/${workspaceId}/state-versions HTTP/1.1`,
        'Host: localhost',
        'Content-Type: application/vnd.api+json',
        `Content-Length: ${20 * MiB}`,
        ...(token ? [`Authorization: Bearer ${token}`] : []),
      ].join('\r\n');
      const answered = exchange(
        port,
        `${head}\r\n\r\n{"data":{"type":"state-versions","attributes":{"serial":1,"md5":"${'0'.repeat(32)}","state":"${'A'.repeat(1024)}`,
      );
      // A server that waits for the body never answers: 5 seconds is plenty on a loaded machine.
      const res = await Promise.race([
        answered,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer before the body')), 5_000).unref()),
      ]);
      res.socket.destroy();
      return res;
    }

    it(
      'answers a read-only member 403, a member who cannot see the workspace and an unknown workspace 404, and no token 401, without the body',
      { timeout: 30_000 },
      async () => {
        const org = await ctx.organization();
        const project = await createProject(ctx, org);
        const w = await createWorkspace(ctx, org, project.id);
        const reader = await memberWithAccess(ctx, org, [[project.id, 'read']]);
        const stranger = await ctx.member(org);

        const forbidden = await partial(w.id, reader.token);
        assert.equal(forbidden.status, 403, forbidden.body);
        assert.equal(JSON.parse(forbidden.body).errors[0].status, '403');
        assert.equal((await partial(w.id, stranger.token)).status, 404);
        assert.equal((await partial('ws-AAAAAAAAAAAAAAAA', org.owner.token)).status, 404);
        assert.equal((await partial('not-an-id', org.owner.token)).status, 404);
        assert.equal((await partial(w.id, null)).status, 401);
        // Nothing was written.
        const versions = await ctx.database.db.selectFrom('state_versions').select('id').where('workspace_id', '=', w.id).execute();
        assert.deepEqual(versions, []);
      },
    );
  });
}
