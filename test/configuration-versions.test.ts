import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant } from './helpers/projects.ts';

const cvBody = (attributes: Record<string, unknown> = {}) => ({ data: { type: 'configuration-versions', attributes } });
// A gzip header and a few bytes: Hangar stores what it is given without unpacking it.
const TARBALL = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6, 7, 8]);

suite('configuration versions', (ctx) => {
  const put = (url: string, body: Buffer, headers: Record<string, string> = { 'content-type': 'application/octet-stream' }) =>
    ctx.app.inject({ method: 'PUT', url: new URL(url).pathname, headers, payload: body });

  it('creates a pending version whose upload URL works once, without a token, and stores the bytes', async () => {
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
    assert.match(url, /^http:\/\/[^/]+\/_archivist\/v1\/object\/[0-9A-Za-z]{43}$/);
    const secret = url.split('/').pop()!;

    // The URL is never shown again, and is stored only as a digest.
    const shown = await ctx.get(`/api/v2/configuration-versions/${cv.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes['upload-url'], null);
    const rows = await ctx.database.db.selectFrom('configuration_versions').select(['upload_digest']).execute();
    assert.ok(!JSON.stringify(rows).includes(secret));

    const up = await put(url, TARBALL);
    assert.equal(up.statusCode, 200, up.body);
    const uploaded = await ctx.get(`/api/v2/configuration-versions/${cv.id}`, org.owner.token);
    assert.equal(uploaded.body.data.attributes.status, 'uploaded');
    assert.match(uploaded.body.data.attributes['status-timestamps']['uploaded-at'], /Z$/);
    const stored = await ctx.database.db.selectFrom('configuration_versions').select(['archive', 'archive_size']).where('id', '=', cv.id).executeTakeFirstOrThrow();
    assert.deepEqual(Buffer.from(stored.archive!), TARBALL);
    assert.equal(stored.archive_size, TARBALL.length);

    // Single use.
    assert.equal((await put(url, TARBALL)).statusCode, 404);
    assert.ok(!ctx.logs.includes(secret), 'the upload secret is never logged');

    const list = await ctx.get(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token);
    assertStatus(list, 200);
    assert.deepEqual(list.body.data.map((c: any) => c.id), [cv.id]);
    assert.equal(list.body.meta.pagination['total-count'], 1);
  });

  it('refuses unknown and expired upload URLs, empty and oversized bodies', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    assert.equal((await put('http://x/_archivist/v1/object/nope', TARBALL)).statusCode, 404);
    assert.equal((await put(`http://x/_archivist/v1/object/${'a'.repeat(43)}`, TARBALL)).statusCode, 404);
    const make = async () => (await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, cvBody())).body.data;
    const a = await make();
    assert.equal((await put(a.attributes['upload-url'], Buffer.alloc(0))).statusCode, 400);
    assert.equal((await put(a.attributes['upload-url'], Buffer.alloc(10 * 1024 * 1024 + 1))).statusCode, 413);
    // Expired: the URL no longer works, and the version stays pending.
    await ctx.database.db.updateTable('configuration_versions').set({ upload_expires_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', a.id).execute();
    assert.equal((await put(a.attributes['upload-url'], TARBALL)).statusCode, 404);
    assert.equal((await ctx.get(`/api/v2/configuration-versions/${a.id}`, org.owner.token)).body.data.attributes.status, 'pending');
    // Whatever the content type.
    const b = await make();
    assert.equal((await put(b.attributes['upload-url'], TARBALL, {})).statusCode, 200);
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
});
