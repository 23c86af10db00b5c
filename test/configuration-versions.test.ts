import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant } from './helpers/projects.ts';
import { openKeyring } from '../src/crypto/keys.ts';
import { issueUploadCredential } from '../src/crypto/upload-credentials.ts';

const cvBody = (attributes: Record<string, unknown> = {}) => ({ data: { type: 'configuration-versions', attributes } });
// A gzip header and a few bytes: Hangar stores what it is given without unpacking it.
const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8]);

suite('configuration versions', (ctx) => {
  const put = (url: string, body: Buffer, headers: Record<string, string> = { 'content-type': 'application/octet-stream' }) =>
    ctx.app.inject({ method: 'PUT', url: new URL(url).pathname, headers, payload: body });

  it('creates a pending version whose upload URL works without a token and stores the bytes (a second upload replaces them)', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const created = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody({ 'auto-queue-runs': false }));
    assertStatus(created, 201);
    const cv = created.body.data;
    assert.match(cv.id, /^cv-[0-9A-Za-z]{16}$/);
    assert.equal(cv.attributes.status, 'pending');
    assert.equal(cv.attributes['auto-queue-runs'], false);
    assert.equal(cv.attributes.speculative, false);
    const url: string = cv.attributes['upload-url'];
    assert.match(url, new RegExp(`^http://[^/]+/_archivist/v1/object/${cv.id}\\.\\d+\\.[A-Za-z0-9_-]{43}$`));
    const signature = url.split('.').pop()!;

    // The URL is never shown again, and nothing of its credential is stored.
    const shown = await ctx.get(`/api/v2/configuration-versions/${cv.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes['upload-url'], null);
    const rows = await ctx.database.db.selectFrom('configuration_versions').selectAll().execute();
    assert.ok(!JSON.stringify(rows).includes(signature));

    const up = await put(url, TARBALL);
    assert.equal(up.statusCode, 200, up.body);
    const uploaded = await ctx.get(`/api/v2/configuration-versions/${cv.id}`, org.owner.token);
    assert.equal(uploaded.body.data.attributes.status, 'uploaded');
    assert.match(uploaded.body.data.attributes['status-timestamps']['uploaded-at'], /Z$/);
    const stored = await ctx.database.db.selectFrom('configuration_versions').select(['archive_size']).where('id', '=', cv.id).executeTakeFirstOrThrow();
    assert.deepEqual(await ctx.services.configurationVersions.archive(cv.id), TARBALL);
    assert.equal(stored.archive_size, TARBALL.length);
    // Sealed at rest in the blob store: the tarball's bytes are nowhere in its row.
    const blob = await ctx.database.db
      .selectFrom('blobs')
      .selectAll()
      .where('family', '=', 'configuration-versions')
      .where('owner', '=', cv.id)
      .executeTakeFirstOrThrow();
    assert.match(blob.key_id!, /^[0-9a-f]{16}$/);
    assert.ok(!Buffer.from(blob.body).includes(TARBALL.subarray(0, 32)));

    // A second upload to the same URL replaces the first, as TFE's archivist takes it (go-tfe
    // uploads twice to one URL).
    const replacement = Buffer.concat([TARBALL, Buffer.from('replaced')]);
    const again = await put(url, replacement);
    assert.equal(again.statusCode, 200, again.body);
    assert.ok(!again.body.includes(signature));
    const restored = await ctx.database.db
      .selectFrom('configuration_versions')
      .select(['archive_size', 'status'])
      .where('id', '=', cv.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(await ctx.services.configurationVersions.archive(cv.id), replacement);
    assert.equal(restored.archive_size, replacement.length);
    assert.equal(restored.status, 'uploaded');
    assert.ok(!ctx.logs.includes(signature), 'the upload credential is never logged');

    const list = await ctx.get(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token);
    assertStatus(list, 200);
    assert.deepEqual(
      list.body.data.map((c: any) => c.id),
      [cv.id],
    );
    assert.equal(list.body.meta.pagination['total-count'], 1);
  });

  it("names a workspace's newest configuration version that is not provisional as its current one", async () => {
    const org = await ctx.organization();
    const [ws, other] = [await createWorkspace(ctx, org), await createWorkspace(ctx, org)];
    const current = async (id: string) => (await ctx.get(`/api/v2/workspaces/${id}`, org.owner.token)).body.data.relationships['current-configuration-version'];
    const listed = async () => {
      const page = await ctx.get(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token);
      return new Map(page.body.data.map((w: any) => [w.id, w.relationships['current-configuration-version'].data?.id ?? null]));
    };
    const create = async (attributes: Record<string, unknown> = {}) =>
      (await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody(attributes))).body.data.id as string;
    assert.deepEqual(await current(ws.id), { data: null });

    // Pending counts (go-tfe reads it before any upload); a provisional one does not.
    const first = await create();
    assert.deepEqual(await current(ws.id), {
      data: { id: first, type: 'configuration-versions' },
      links: { related: `/api/v2/configuration-versions/${first}` },
    });
    await create({ provisional: true });
    assert.equal((await current(ws.id)).data.id, first);
    // Versions made within one millisecond would order by id: these are made apart.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await create();
    assert.equal((await current(ws.id)).data.id, second);
    // A page names each workspace's own, in one query for all of them.
    assert.deepEqual(
      await listed(),
      new Map([
        [ws.id, second],
        [other.id, null],
      ]),
    );
  });

  it('stores exactly the bytes the upload URL is given, whatever their content type', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    for (const type of [
      'application/json',
      'text/plain',
      'application/vnd.api+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      null,
    ]) {
      const created = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody({ 'auto-queue-runs': false }));
      assertStatus(created, 201);
      const cv = created.body.data;
      const bytes = type?.includes('json') ? Buffer.from('{"not":"a tarball"}') : Buffer.concat([TARBALL, Buffer.from(String(type))]);
      const up = await put(cv.attributes['upload-url'], bytes, type === null ? {} : { 'content-type': type });
      assert.equal(up.statusCode, 200, `${type}: ${up.body}`);
      assert.deepEqual(await ctx.services.configurationVersions.archive(cv.id), bytes, String(type));
    }
  });

  it('refuses forged, re-aimed and expired upload URLs alike (404) before reading the body, and empty and oversized bodies', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const make = async () => (await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody())).body.data;
    const a = await make();
    const b = await make();
    const urlA: string = a.attributes['upload-url'];
    const credentialA = urlA.slice(urlA.indexOf(`${a.id}.`) + a.id.length + 1);
    const [expires, signature] = credentialA.split('.') as [string, string];
    const keyring = await openKeyring(ctx.config, ctx.database);
    const object = (rest: string) => `http://x/_archivist/v1/object/${rest}`;
    const refused = [
      'nope',
      'a'.repeat(43),
      credentialA,
      `${a.id}.${expires}.${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`,
      `${a.id}.${Number(expires) + 3_600_000}.${signature}`,
      // A's credential on B, and a credential for A that a state upload would take.
      `${b.id}.${credentialA}`,
      `${a.id}.${issueUploadCredential(keyring, 'state-upload', a.id, 60_000)}`,
      // Expired: signed by Hangar for A, but 15 minutes and a second ago.
      `${a.id}.${issueUploadCredential(keyring, 'configuration-upload', a.id, 15 * 60_000, Date.now() - 15 * 60_000 - 1_000)}`,
    ];
    for (const rest of refused) {
      const res = await put(object(rest), TARBALL);
      assert.equal(res.statusCode, 404, rest);
      assert.deepEqual(JSON.parse(res.body).errors, [{ status: '404', title: 'not found' }]);
    }
    // Checked before the body is read: a forged URL with an oversized body is still a 404.
    assert.equal((await put(object(`${b.id}.${credentialA}`), Buffer.alloc(10 * 1024 * 1024 + 1))).statusCode, 404);
    assert.equal((await ctx.get(`/api/v2/configuration-versions/${a.id}`, org.owner.token)).body.data.attributes.status, 'pending');
    assert.equal((await ctx.get(`/api/v2/configuration-versions/${b.id}`, org.owner.token)).body.data.attributes.status, 'pending');

    assert.equal((await put(urlA, Buffer.alloc(0))).statusCode, 400);
    assert.equal((await put(urlA, Buffer.alloc(10 * 1024 * 1024 + 1))).statusCode, 413);
    // Whatever the content type.
    assert.equal((await put(b.attributes['upload-url'], TARBALL, {})).statusCode, 200);
    // A genuine URL whose version went with its workspace names nothing.
    assertStatus(await ctx.delete(`/api/v2/workspaces/${ws.id}`, org.owner.token), 204);
    assert.equal((await put(urlA, TARBALL)).statusCode, 404);
  });

  it('keeps the credential out of the request log line, whose URL ends in [REDACTED]', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const cv = (await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody())).body.data;
    const url: string = cv.attributes['upload-url'];
    const from = ctx.logs.length;
    assert.equal((await put(url, TARBALL)).statusCode, 200);
    assert.equal((await put(`${url}x`, TARBALL)).statusCode, 404);
    const logged = ctx.logs
      .slice(from)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request completed');
    assert.deepEqual(
      logged.map((l) => [l.url, l.status]),
      [
        ['/_archivist/v1/object/[REDACTED]', 200],
        ['/_archivist/v1/object/[REDACTED]', 404],
      ],
    );
    assert.ok(!ctx.logs.includes(url.split('/').pop()!));
    assert.ok(!ctx.logs.includes(url.split('.').pop()!));
  });

  it('takes plan permission to create; readers see; others do not; bodies are checked', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const reader = await ctx.member(org);
    await grant(ctx, org, reader.teamId, project.id, 'read');
    const writer = await ctx.member(org);
    await grant(ctx, org, writer.teamId, project.id, 'write');
    const url = `/api/v2/workspaces/${ws.id}/configuration-versions`;
    assertError(await ctx.post(url, reader.token, cvBody()), 403);
    const made = await ctx.post(url, writer.token, cvBody());
    assertStatus(made, 201);
    assertStatus(await ctx.get(`/api/v2/configuration-versions/${made.body.data.id}`, reader.token), 200);
    assertStatus(await ctx.get(url, reader.token), 200);
    const stranger = await ctx.member(org);
    assertError(await ctx.post(url, stranger.token, cvBody()), 404);
    assertError(await ctx.get(`/api/v2/configuration-versions/${made.body.data.id}`, stranger.token), 404);
    const other = await ctx.organization();
    assertError(await ctx.get(`/api/v2/configuration-versions/${made.body.data.id}`, other.owner.token), 404);
    assertError(await ctx.post(url, other.owner.token, cvBody()), 404);
    assertError(await ctx.post(url, org.owner.token, { data: { type: 'runs' } }), 422, '/data/type');
    assertError(await ctx.post(url, org.owner.token, cvBody({ speculative: 'yes' })), 422, '/data/attributes/speculative');
    assertError(await ctx.request('POST', url, { token: org.owner.token, rawBody: '{}', contentType: 'text/plain' }), 415);
    assertError(await ctx.post(url, null, cvBody()), 401);
    assertError(await ctx.get('/api/v2/configuration-versions/cv-doesnotexist000000', org.owner.token), 404);
    assertError(await ctx.post('/api/v2/workspaces/ws-doesnotexist000000/configuration-versions', org.owner.token, cvBody()), 404);
  });

  it('downloads the uploaded tarball byte for byte; a version without bytes is not found', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const created = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody());
    const id = created.body.data.id;
    assertError(await ctx.get(`/api/v2/configuration-versions/${id}/download`, org.owner.token), 404);
    assert.equal((await put(created.body.data.attributes['upload-url'], TARBALL)).statusCode, 200);
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/v2/configuration-versions/${id}/download`,
      headers: { authorization: `Bearer ${org.owner.token}` },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(res.rawPayload, TARBALL);
    assertError(await ctx.get(`/api/v2/configuration-versions/${id}/download`, null), 401);
    assertError(await ctx.get(`/api/v2/configuration-versions/${id}/download`, other.owner.token), 404);
    assertError(await ctx.get('/api/v2/configuration-versions/cv-doesnotexist000000/download', org.owner.token), 404);
  });

  it('archives a version that is neither current nor used by an unfinished run, dropping its bytes', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const ws = await createWorkspace(ctx, org, project.id);
    const reader = await ctx.member(org);
    await grant(ctx, org, reader.teamId, project.id, 'read');
    const upload = async () => {
      const cv = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody());
      assert.equal((await put(cv.body.data.attributes['upload-url'], TARBALL)).statusCode, 200);
      return cv.body.data.id as string;
    };
    const first = await upload();
    const archive = (id: string, token: string | null = org.owner.token) => ctx.post(`/api/v2/configuration-versions/${id}/actions/archive`, token, {});
    // The workspace's current version stays, as in TFE (go-tfe matches these words).
    const current = await archive(first);
    assertError(current, 409);
    assert.equal(current.body.errors[0].title, 'transition not allowed');
    assert.equal(current.body.errors[0].detail, 'configuration could not be archived because it is current');

    const second = await upload();
    const run = await ctx.post('/api/v2/runs', org.owner.token, {
      data: {
        type: 'runs',
        relationships: {
          workspace: { data: { type: 'workspaces', id: ws.id } },
          'configuration-version': { data: { type: 'configuration-versions', id: first } },
        },
      },
    });
    assertStatus(run, 201);
    await upload();
    // A run that has not ended still needs its files.
    assertError(await archive(first), 409);
    assertStatus(await ctx.post(`/api/v2/runs/${run.body.data.id}/actions/cancel`, org.owner.token, {}), 202);
    assertStatus(await archive(first), 202);

    assertError(await archive(second, reader.token), 403);
    assertError(await archive(second, null), 401);
    assertError(await archive('cv-doesnotexist000000'), 404);
    assertStatus(await archive(second), 202);
    const shown = await ctx.get(`/api/v2/configuration-versions/${second}`, org.owner.token);
    assert.equal(shown.body.data.attributes.status, 'archived');
    assert.match(shown.body.data.attributes['status-timestamps']['archived-at'], /Z$/);
    const row = await ctx.database.db.selectFrom('configuration_versions').select(['archive']).where('id', '=', second).executeTakeFirstOrThrow();
    assert.equal(row.archive, null);
    assert.equal(await ctx.services.configurationVersions.archive(second), undefined);
    assertError(await ctx.get(`/api/v2/configuration-versions/${second}/download`, org.owner.token), 404);
    const again = await archive(second);
    assertError(again, 409);
    assert.equal(again.body.errors[0].detail, 'configuration could not be archived because it is archived');
  });
});
