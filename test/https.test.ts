// HTTPS served by Hangar itself, its start-up errors, and links behind a TLS-terminating proxy.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { createWorkspace } from './helpers/projects.ts';
import { hangar, startServer } from './helpers/process.ts';
import { createStateVersion } from './helpers/state.ts';
import { hasOpenssl, makeCertificates, type TestCertificates } from './helpers/tls.ts';
import { tmpdir } from 'node:os';

function get(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTPS', { skip: !hasOpenssl() && 'the openssl command is not installed' }, () => {
  let certs: TestCertificates;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-https-'));
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it('serves the API and discovery over HTTPS with HANGAR_TLS_CERT_FILE and HANGAR_TLS_KEY_FILE', async () => {
    certs = makeCertificates();
    const server = await startServer({ HANGAR_DATA_DIR: dataDir, HANGAR_TLS_CERT_FILE: certs.certFile, HANGAR_TLS_KEY_FILE: certs.keyFile });
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ca = readFileSync(certs.caFile);
      const discovery = await get(`${server.url.replace('127.0.0.1', 'localhost')}/.well-known/terraform.json`, ca);
      assert.equal(discovery.status, 200);
      assert.equal(JSON.parse(discovery.body)['state.v2'], '/api/v2/');
      assert.equal((await get(`${server.url}/api/v2/ping`, ca)).status, 204);
      // A client that does not trust the CA is refused by TLS itself.
      await assert.rejects(get(`${server.url}/api/v2/ping`, Buffer.from('')), /certificate|self.signed|unable/i);
    } finally {
      await server.stop('SIGKILL');
    }
  });

  it('stops start-up with one line naming the setting when the files are wrong', () => {
    certs ??= makeCertificates();
    const base = { HANGAR_DATA_DIR: dataDir, HANGAR_PORT: '0', HANGAR_LOG_LEVEL: 'silent' };
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ HANGAR_TLS_CERT_FILE: certs.certFile }, /^configuration error: HANGAR_TLS_CERT_FILE and HANGAR_TLS_KEY_FILE must be set together/m],
      [
        { HANGAR_TLS_CERT_FILE: path.join(certs.dir, 'missing.pem'), HANGAR_TLS_KEY_FILE: certs.keyFile },
        /^configuration error: HANGAR_TLS_CERT_FILE: cannot read .*missing\.pem \(ENOENT\)$/m,
      ],
      [
        { HANGAR_TLS_CERT_FILE: certs.keyFile, HANGAR_TLS_KEY_FILE: certs.keyFile },
        /^configuration error: HANGAR_TLS_CERT_FILE: .* holds no PEM certificate$/m,
      ],
      [
        { HANGAR_TLS_CERT_FILE: certs.certFile, HANGAR_TLS_KEY_FILE: certs.certFile },
        /^configuration error: HANGAR_TLS_KEY_FILE: .* holds no PEM private key/m,
      ],
      [
        { HANGAR_TLS_CERT_FILE: certs.certFile, HANGAR_TLS_KEY_FILE: path.join(certs.dir, 'ca.key') },
        /^configuration error: HANGAR_TLS_KEY_FILE: the key in .* does not belong to the certificate/m,
      ],
    ];
    for (const [env, message] of cases) {
      const r = hangar(['serve'], { ...base, ...env });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(!r.stderr.includes('PRIVATE KEY'));
    }
  });
});

// Behind a TLS-terminating proxy: links and state URLs use the proxy's scheme and host.
suite(
  'links behind a trusted proxy',
  (ctx) => {
    it('builds absolute links from X-Forwarded-Proto and -Host', async () => {
      const org = await ctx.organization();
      const w = await createWorkspace(ctx, org);
      const sv = await createStateVersion(ctx, w.id, org.owner.token);
      const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'hangar.example.com' };
      const shown = await ctx.request('GET', `/api/v2/state-versions/${sv.id}`, { token: org.owner.token, headers });
      assertStatus(shown, 200);
      assert.equal(shown.body.data.attributes['hosted-state-download-url'], `https://hangar.example.com/api/v2/state-versions/${sv.id}/download`);
      const list = await ctx.request('GET', `/api/v2/organizations/${org.name}/workspaces`, { token: org.owner.token, headers });
      assert.match(list.body.links.self, /^https:\/\/hangar\.example\.com\/api\/v2\/organizations\//);
    });
  },
  { HANGAR_TRUST_PROXY: '127.0.0.1' },
);

suite('links without a trusted proxy', (ctx) => {
  it('ignores X-Forwarded-* from a client that is no trusted proxy', async () => {
    const org = await ctx.organization();
    const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example.com' };
    const list = await ctx.request('GET', `/api/v2/organizations/${org.name}/workspaces`, { token: org.owner.token, headers });
    assert.ok(!list.body.links.self.includes('evil.example.com'), list.body.links.self);
  });
});
