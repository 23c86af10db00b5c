// State uploads survive kill -9: Terraform-shaped writers (create a pending version, PUT the
// state to its upload URL) stream at the real server until it is killed. After a restart every
// acknowledged upload is finalized with its exact bytes and outputs, and every other version is
// either whole or cleanly pending: never a finalized version without its state, nor a state
// without its outputs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { dialects, POSTGRES_URL } from '../helpers/harness.ts';
import { databaseEnv, hangar, startServer } from '../helpers/process.ts';
import { stateFile } from '../helpers/state.ts';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const WRITERS = 6;
const OUTPUTS = 3;

for (const dialect of dialects()) {
  describe(`kill -9 during state uploads leaves nothing half-written [${dialect}]`, () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-state-crash-'));
    let cleanup = async () => {};
    after(async () => {
      await cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('finalizes every acknowledged upload whole, and no other version by halves', async () => {
      const db = await databaseEnv(dialect, dataDir, POSTGRES_URL);
      cleanup = db.cleanup;
      let server = await startServer(db.env);
      const token = hangar(['bootstrap'], db.env).stdout.trim();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
      const post = (url: string, body?: unknown) =>
        fetch(`${server.url}/api/v2${url}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
      assert.equal((await post('/organizations', { data: { type: 'organizations', attributes: { name: 'crash', email: 'c@example.test' } } })).status, 201);
      const workspaces: string[] = [];
      for (let i = 0; i < WRITERS; i++) {
        const res = await post('/organizations/crash/workspaces', { data: { type: 'workspaces', attributes: { name: `w${i}` } } });
        const id = ((await res.json()) as any).data.id as string;
        assert.equal((await post(`/workspaces/${id}/actions/lock`, { data: { type: '' } })).status, 200);
        workspaces.push(id);
      }

      // Each writer uploads ever higher serials to its own workspace, as `terraform apply` does.
      const acknowledged = new Map<string, string>(); // version id → md5
      let stop = false;
      const writer = async (workspaceId: string) => {
        for (let serial = 1; !stop; serial++) {
          // About half a megabyte, so that a kill often lands mid-body.
          const state = stateFile({ serial, resources: 600 });
          try {
            const created = await post(`/workspaces/${workspaceId}/state-versions`, {
              data: { type: 'state-versions', attributes: { serial, md5: md5(state), lineage: 'crash' } },
            });
            if (created.status !== 201) return;
            const sv = ((await created.json()) as any).data;
            const put = await fetch(sv.attributes['hosted-state-upload-url'], {
              method: 'PUT',
              headers: { 'content-type': 'application/octet-stream' },
              body: state,
            });
            if (put.status === 204) acknowledged.set(sv.id, md5(state));
          } catch {
            return; // the server is gone
          }
        }
      };
      const running = workspaces.map(writer);
      await new Promise((r) => setTimeout(r, 2000));
      await server.stop('SIGKILL');
      stop = true;
      await Promise.all(running);
      assert.ok(acknowledged.size >= WRITERS, `only ${acknowledged.size} uploads were acknowledged before the kill`);

      server = await startServer(db.env);
      try {
        const get = async (url: string) =>
          fetch(url.startsWith('http') ? url : `${server.url}/api/v2${url}`, { headers: { authorization: `Bearer ${token}` } });
        let finalized = 0;
        for (let i = 0; i < WRITERS; i++) {
          const list = (await (await get(`/state-versions?filter[organization][name]=crash&filter[workspace][name]=w${i}&page[size]=100`)).json()) as any;
          let highest = 0;
          for (const sv of list.data) {
            const downloadUrl = sv.attributes['hosted-state-download-url'];
            if (sv.attributes.status === 'finalized') {
              finalized++;
              const bytes = Buffer.from(await (await get(downloadUrl)).arrayBuffer());
              assert.equal(md5(bytes), acknowledged.get(sv.id) ?? md5(bytes), `${sv.id}: the state differs from what was acknowledged`);
              assert.equal(sv.relationships.outputs.data.length, OUTPUTS, `${sv.id}: finalized without all its outputs`);
              assert.equal(sv.attributes.size, bytes.length);
              highest = Math.max(highest, sv.attributes.serial);
            } else {
              assert.equal(sv.attributes.status, 'pending');
              assert.ok(!acknowledged.has(sv.id), `${sv.id}: acknowledged, but pending after the restart`);
              assert.equal(downloadUrl, null);
              assert.equal(sv.relationships.outputs.data.length, 0, `${sv.id}: pending, yet holding outputs`);
              assert.equal((await get(`/state-versions/${sv.id}/download`)).status, 404);
            }
          }
          if (highest > 0) {
            const current = (await (await get(`/workspaces/${workspaces[i]}/current-state-version`)).json()) as any;
            assert.equal(current.data.attributes.serial, highest);
          }
        }
        assert.ok(finalized >= acknowledged.size);
      } finally {
        await server.stop('SIGKILL');
      }
    });
  });
}
