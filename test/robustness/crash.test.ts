// Crash safety: stream writes at the real server, kill -9 it mid-stream, restart it on the same
// database. Every write that was answered 2xx must still be there, and the database must open.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { databaseEnv, hangar, startServer } from '../helpers/process.ts';
import { dialects, POSTGRES_URL } from '../helpers/harness.ts';

for (const dialect of dialects()) {
  describe(`kill -9 mid-stream loses no acknowledged write [${dialect}]`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-crash-'));
    let cleanup = async () => {};
    after(async () => {
      await cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps every 2xx write across a SIGKILL and reopens cleanly', async () => {
      const db = await databaseEnv(dialect, dataDir, POSTGRES_URL);
      cleanup = db.cleanup;
      const env = db.env;
      let server = await startServer(env);
      const token = hangar(['bootstrap'], env).stdout.trim();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
      const org = await fetch(`${server.url}/api/v2/organizations`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ data: { type: 'organizations', attributes: { name: 'crash', email: 'c@example.test' } } }),
      });
      assert.equal(org.status, 201);

      // Eight writers stream team creations until the process dies under them.
      const acknowledged: string[] = [];
      let stop = false;
      let seq = 0;
      const writer = async () => {
        while (!stop) {
          try {
            const res = await fetch(`${server.url}/api/v2/organizations/crash/teams`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ data: { type: 'teams', attributes: { name: `t-${++seq}` } } }),
            });
            if (res.ok) acknowledged.push(((await res.json()) as any).data.id);
          } catch {
            return; // connection refused or reset: the server is gone
          }
        }
      };
      const writers = Array.from({ length: 8 }, writer);
      await new Promise((r) => setTimeout(r, 1500));
      await server.stop('SIGKILL');
      stop = true;
      await Promise.all(writers);
      assert.ok(acknowledged.length > 10, `only ${acknowledged.length} writes were acknowledged before the kill`);

      if (dialect === 'sqlite') {
        const check = new DatabaseSync(path.join(dataDir, 'hangar.db'));
        assert.equal((check.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
        check.close();
      }

      server = await startServer(env);
      try {
        const list = await fetch(`${server.url}/api/v2/organizations/crash/teams?page[size]=100&page[number]=1`, { headers });
        const total = ((await list.json()) as any).meta.pagination['total-count'];
        assert.ok(total >= acknowledged.length + 1, `${total} teams after restart, ${acknowledged.length} acknowledged`);
        for (const id of acknowledged) {
          const res = await fetch(`${server.url}/api/v2/teams/${id}`, { headers });
          assert.equal(res.status, 200, `acknowledged team ${id} is missing after the crash`);
        }
      } finally {
        await server.stop('SIGKILL');
      }
    });
  });
}
