import assert from 'node:assert/strict';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { pack, type Header } from 'tar-stream';
import { suite, unique } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createPolicySet, type Org } from './helpers/policy-sets.ts';
import { openKeyring } from '../src/crypto/keys.ts';
import { issueUploadCredential } from '../src/crypto/upload-credentials.ts';
import { parseHcl } from '../src/policy-set-versions/sentinel-hcl.ts';

const ID = /^polsetver-[0-9A-Za-z]{16}$/;
type Entry = Partial<Header> & { name: string; body?: string };

/** A tar.gz of `entries`, as go-tfe's packContents would send it. */
async function tarball(entries: Entry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of p) chunks.push(c as Buffer);
  })();
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) => p.entry({ type: 'file', ...header }, body ?? '', (e) => (e ? reject(e) : resolve())));
  }
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

const SENTINEL_HCL = `# Copyright line, as go-tfe's fixture has
policy "enforce-mandatory-tags" {
  source = "./enforce-mandatory-tags.sentinel"
  enforcement_level = "hard-mandatory"
}

policy "advisory-one" { source = "policies/advise.sentinel"
  enforcement_level = "advisory" }

module "tfplan-functions" {
  source = "./modules/tfplan-functions.sentinel"
}

param "allowed_types" {
  value = ["t3.micro", "t3.small"]
}

sentinel {
  features = { apply-all = true }
}
`;
const GOOD: Entry[] = [
  { name: 'sentinel.hcl', body: SENTINEL_HCL },
  { name: 'enforce-mandatory-tags.sentinel', body: 'main = rule { true }\n' },
  { name: 'policies/', type: 'directory' },
  { name: 'policies/advise.sentinel', body: 'main = rule { false }\n' },
  { name: 'modules/tfplan-functions.sentinel', body: 'f = func() { return 1 }\n' },
];

suite('policy set versions', (ctx) => {
  const put = (url: string, body: Buffer, headers: Record<string, string> = { 'content-type': 'application/octet-stream' }) =>
    ctx.app.inject({ method: 'PUT', url: new URL(url).pathname, headers, payload: body });
  const create = (setId: string, token: string | null) =>
    ctx.request('POST', `/api/v2/policy-sets/${setId}/versions`, { token, contentType: 'application/vnd.api+json' });
  const show = (id: string, token: string) => ctx.get(`/api/v2/policy-set-versions/${id}`, token);
  async function version(org: Org, setId?: string) {
    const set = setId ?? (await createPolicySet(ctx, org)).id;
    const res = await create(set, org.owner.token);
    assertStatus(res, 201);
    return { set, v: res.body.data };
  }

  it('creates a pending version with an upload link; the upload makes it ready and the set current and versioned', async () => {
    const org = await ctx.organization();
    const { set, v } = await version(org);
    assert.match(v.id, ID);
    assert.equal(v.type, 'policy-set-versions');
    assert.equal(v.attributes.status, 'pending');
    assert.equal(v.attributes.source, 'tfe-api');
    assert.equal(v.attributes.error, null);
    assert.equal(v.attributes['ingress-attributes'], null);
    assert.equal(v.attributes['status-timestamps']['pending-at'], v.attributes['created-at']);
    assert.deepEqual(v.relationships['policy-set'].data, { id: set, type: 'policy-sets' });
    assert.equal(v.links.self, `/api/v2/policy-set-versions/${v.id}`);
    assert.match(v.links.upload, new RegExp(`^http://[^/]+/_archivist/v1/policy-set-version/${v.id}\\.\\d+\\.[A-Za-z0-9_-]{43}$`));

    const pendingSet = await ctx.get(`/api/v2/policy-sets/${set}`, org.owner.token);
    assert.deepEqual(pendingSet.body.data.relationships['newest-version'].data, { id: v.id, type: 'policy-set-versions' });
    assert.deepEqual(pendingSet.body.data.relationships['current-version'].data, null);
    assert.equal(pendingSet.body.data.attributes.versioned, true);

    // A read while pending hands out a link too (go-tfe uploads through the version it has just read).
    const read = await show(v.id, org.owner.token);
    assertStatus(read, 200);
    assert.match(read.body.data.links.upload, /_archivist\/v1\/policy-set-version\//);

    const up = await put(read.body.data.links.upload, await tarball(GOOD));
    assert.equal(up.statusCode, 200, up.body);
    const ready = await show(v.id, org.owner.token);
    assert.equal(ready.body.data.attributes.status, 'ready');
    assert.match(ready.body.data.attributes['status-timestamps']['ready-at'], /Z$/);
    assert.equal(ready.body.data.links.upload, undefined);

    // A second version stays pending: the set's newest is it, its current the ready one.
    const { v: newer } = await version(org, set);
    const withBoth = await ctx.get(`/api/v2/policy-sets/${set}?include=current_version,newest_version`, org.owner.token);
    assertStatus(withBoth, 200);
    const data = withBoth.body.data;
    assert.equal(data.relationships['newest-version'].data.id, newer.id);
    assert.equal(data.relationships['current-version'].data.id, v.id);
    assert.equal(data.attributes['policy-count'], 2);
    const included = new Map(withBoth.body.included.map((r: any) => [r.id, r]));
    assert.equal((included.get(v.id) as any).attributes.status, 'ready');
    assert.equal((included.get(newer.id) as any).attributes.status, 'pending');

    // What the runtime reads: the declared policies, modules and params with their sources.
    const manifest = await ctx.services.policySetVersions.manifest(ctx.database.db, v.id);
    assert.deepEqual(
      manifest!.policies.map((p) => [p.name, p.path, p.enforcementLevel, p.source]),
      [
        ['enforce-mandatory-tags', 'enforce-mandatory-tags.sentinel', 'hard-mandatory', 'main = rule { true }\n'],
        ['advisory-one', 'policies/advise.sentinel', 'advisory', 'main = rule { false }\n'],
      ],
    );
    assert.deepEqual(manifest!.modules, [{ name: 'tfplan-functions', path: 'modules/tfplan-functions.sentinel', source: 'f = func() { return 1 }\n' }]);
    assert.deepEqual(manifest!.params, [{ name: 'allowed_types', value: ['t3.micro', 't3.small'] }]);

    // A version takes one upload.
    assertError(await ctx.request('PUT', new URL(read.body.data.links.upload).pathname, { rawBody: 'x', contentType: 'application/octet-stream' }), 409);

    // Deleting the set takes its versions with it.
    assertStatus(await ctx.delete(`/api/v2/policy-sets/${set}`, org.owner.token), 204);
    assertError(await show(v.id, org.owner.token), 404);
  });

  it('settles a bad archive as errored with the reason, never as a server error', async () => {
    const org = await ctx.organization();
    const cases: Array<[string, Buffer | Promise<Buffer>, RegExp]> = [
      ['not gzip', Buffer.from('just text'), /not a gzip-compressed tar archive/],
      ['gzip, not tar', gzipSync(Buffer.alloc(700, 7)), /not a valid tar archive/],
      ['no sentinel.hcl', tarball([{ name: 'a.sentinel', body: 'main = rule { true }' }]), /no sentinel\.hcl/],
      [
        'missing source',
        tarball([{ name: 'sentinel.hcl', body: 'policy "a" {\n source = "./a.sentinel"\n}\n' }]),
        /line 1: source "\.\/a\.sentinel" is not in the archive/,
      ],
      ['escaping source', tarball([{ name: 'sentinel.hcl', body: 'policy "a" {\n source = "../etc/passwd"\n}\n' }]), /points outside the archive/],
      [
        'remote module',
        tarball([{ name: 'sentinel.hcl', body: 'module "m" {\n source = "https://example.com/m.sentinel"\n}\n' }]),
        /remote sources are not supported/,
      ],
      [
        'bad level',
        tarball([
          { name: 'sentinel.hcl', body: 'policy "a" {\n source = "a.sentinel"\n enforcement_level = "mandatory"\n}\n' },
          { name: 'a.sentinel', body: '' },
        ]),
        /enforcement_level must be one of advisory, soft-mandatory, hard-mandatory/,
      ],
      [
        'duplicate policy',
        tarball([
          { name: 'sentinel.hcl', body: 'policy "a" { source = "a.sentinel" }\npolicy "a" { source = "a.sentinel" }\n' },
          { name: 'a.sentinel', body: '' },
        ]),
        /line 2: policy "a" is declared twice/,
      ],
      [
        'module named twice',
        tarball([
          { name: 'sentinel.hcl', body: 'module "m" { source = "m.sentinel" }\nimport "module" "m" { source = "m.sentinel" }\n' },
          { name: 'm.sentinel', body: '' },
        ]),
        /line 2: import "m" is declared twice/,
      ],
      [
        'static data that is not JSON',
        tarball([
          { name: 'sentinel.hcl', body: 'import "static" "d" {\n source = "d.json"\n format = "json"\n}\n' },
          { name: 'd.json', body: '{nope' },
        ]),
        /line 1: import "static" "d": d\.json is not JSON/,
      ],
      [
        'static data in another format',
        tarball([
          { name: 'sentinel.hcl', body: 'import "static" "d" {\n source = "d.yaml"\n format = "yaml"\n}\n' },
          { name: 'd.yaml', body: 'a: 1' },
        ]),
        /format "yaml" is not supported \(only "json"\)/,
      ],
      [
        'static data over 1 MiB',
        tarball([
          { name: 'sentinel.hcl', body: 'import "static" "d" {\n source = "d.json"\n format = "json"\n}\n' },
          { name: 'd.json', body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) },
        ]),
        /d\.json is larger than 1 MiB/,
      ],
      ['import with one label', tarball([{ name: 'sentinel.hcl', body: 'import "module" {\n source = "m.sentinel"\n}\n' }]), /takes two labels/],
      ['syntax', tarball([{ name: 'sentinel.hcl', body: 'policy "a" {\n source = \n' }]), /sentinel\.hcl: line 2: expected a value/],
      [
        'expression',
        tarball([{ name: 'sentinel.hcl', body: 'param "p" {\n value = var.x\n}\n' }]),
        /line 2: unexpected "\." \(only literal values are supported\)/,
      ],
      ['function call', tarball([{ name: 'sentinel.hcl', body: 'param "p" {\n value = upper\n}\n' }]), /line 2: expressions are not supported \(upper\)/],
      ['parent entry', tarball([{ name: '../evil.sentinel', body: 'x' }]), /points outside the archive/],
      ['absolute entry', tarball([{ name: '/etc/evil', body: 'x' }]), /points outside the archive/],
      ['symlink', tarball([{ name: 'link', type: 'symlink', linkname: '/etc/passwd' }]), /is a symlink/],
      [
        'hard link',
        tarball([
          { name: 'a', body: 'x' },
          { name: 'b', type: 'link', linkname: 'a' },
        ]),
        /is a link/,
      ],
      ['fifo', tarball([{ name: 'pipe', type: 'fifo' }]), /is a fifo/],
      ['bomb', Promise.resolve(gzipSync(Buffer.alloc(30 * 1024 * 1024))), /unpacks to more than/],
    ];
    for (const [what, archive, reason] of cases) {
      const { v } = await version(org);
      const up = await put(v.links.upload, await archive);
      assert.equal(up.statusCode, 200, `${what}: ${up.body}`);
      const errored = await show(v.id, org.owner.token);
      assert.equal(errored.body.data.attributes.status, 'errored', what);
      assert.match(errored.body.data.attributes.error, reason, what);
      assert.match(errored.body.data.attributes['status-timestamps']['errored-at'], /Z$/);
      const set = await ctx.get(`/api/v2/policy-sets/${v.relationships['policy-set'].data.id}`, org.owner.token);
      assert.equal(set.body.data.relationships['current-version'].data, null, what);
    }
  });

  it('refuses forged, expired and misused upload links with 404, empty uploads with 400, oversized ones with 413', async () => {
    const org = await ctx.organization();
    const { v: a } = await version(org);
    const { v: b } = await version(org);
    const keyring = await openKeyring(ctx.config, ctx.database);
    const credentialA = a.links.upload.slice(a.links.upload.indexOf(`${a.id}.`) + a.id.length + 1);
    const object = (rest: string) => `http://x/_archivist/v1/policy-set-version/${rest}`;
    const archive = await tarball(GOOD);
    for (const rest of [
      'nope',
      `${b.id}.${credentialA}`,
      `${a.id}.${issueUploadCredential(keyring, 'configuration-upload', a.id, 60_000)}`,
      `${a.id}.${issueUploadCredential(keyring, 'policy-set-version-upload', a.id, 15 * 60_000, Date.now() - 15 * 60_000 - 1_000)}`,
    ]) {
      const res = await put(object(rest), archive);
      assert.equal(res.statusCode, 404, rest);
    }
    // A configuration version's URL does not take a policy set version's credential either.
    assert.equal((await put(`http://x/_archivist/v1/object/${a.id}.${credentialA}`, archive)).statusCode, 404);
    assert.equal((await put(a.links.upload, Buffer.alloc(0))).statusCode, 400);
    assert.equal((await put(a.links.upload, Buffer.alloc(10 * 1024 * 1024 + 1))).statusCode, 413);
    assert.equal((await show(a.id, org.owner.token)).body.data.attributes.status, 'pending');
    assert.ok(!ctx.logs.includes(credentialA.split('.')[1]!), 'the upload credential is never logged');
  });

  it('keeps held policies and versions apart, and answers unknown ids with 404', async () => {
    const org = await ctx.organization();
    const policy = await ctx.post(`/api/v2/organizations/${org.name}/policies`, org.owner.token, {
      data: { type: 'policies', attributes: { name: unique('p'), 'enforcement-level': 'advisory' } },
    });
    const holding = await createPolicySet(ctx, org);
    const refs = { data: [{ id: policy.body.data.id, type: 'policies' }] };
    assertStatus(await ctx.post(`/api/v2/policy-sets/${holding.id}/relationships/policies`, org.owner.token, refs), 204);
    assertError(await create(holding.id, org.owner.token), 422, '/data');
    const { set: versioned } = await version(org);
    assertError(await ctx.post(`/api/v2/policy-sets/${versioned}/relationships/policies`, org.owner.token, refs), 422, '/data');
    assert.equal((await ctx.get(`/api/v2/policy-sets/${versioned}`, org.owner.token)).body.data.attributes['policy-count'], 0);

    assertError(await create('polset-AAAAAAAAAAAAAAAA', org.owner.token), 404);
    assertError(await show('polsetver-AAAAAAAAAAAAAAAA', org.owner.token), 404);
    assertError(await show('nonexisting', org.owner.token), 404);
    assertError(
      await ctx.request('POST', `/api/v2/policy-sets/${versioned}/versions`, { token: org.owner.token, rawBody: '{}', contentType: 'text/plain' }),
      415,
    );
  });

  it('lets members read versions without an upload link; creating takes manage-policies; others see nothing', async () => {
    const org = await ctx.organization();
    const other = await ctx.organization();
    const set = (await createPolicySet(ctx, org)).id;
    const { v } = await version(org, set);
    const member = await ctx.member(org);
    const manager = await ctx.member(org, { 'manage-policies': true });

    assertError(await create(set, null), 401);
    assertError(await ctx.get(`/api/v2/policy-set-versions/${v.id}`, null), 401);
    assertError(await create(set, other.owner.token), 404);
    assertError(await show(v.id, other.owner.token), 404);
    assertError(await create(set, member.token), 403);
    const seen = await show(v.id, member.token);
    assertStatus(seen, 200);
    assert.equal(seen.body.data.links.upload, undefined);
    assertStatus(await create(set, manager.token), 201);
    assert.match((await show(v.id, manager.token)).body.data.links.upload, /_archivist/);
  });

  it('reads the HCL it needs: one-line blocks, comments, escapes, lists and objects', () => {
    const body = parseHcl('/* block\ncomment */ a = "x\\"y\\u0041"\n// line\nb = [1, -2.5, true, null, { k = "v", "q": [] }]\nblk "l1" l2 { c = false }\n');
    assert.deepEqual(body.attributes.get('a')!.value, 'x"yA');
    assert.deepEqual(body.attributes.get('b')!.value, [1, -2.5, true, null, { k: 'v', q: [] }]);
    assert.deepEqual(body.blocks[0]!.labels, ['l1', 'l2']);
    assert.equal(body.blocks[0]!.body.attributes.get('c')!.value, false);
    assert.throws(() => parseHcl('a = "${var.x}"'), /template expressions/);
    assert.throws(() => parseHcl('a = <<EOF\nx\nEOF\n'), /heredoc/);
    assert.throws(() => parseHcl('a = 1\na = 2\n'), /line 2: attribute "a" is set twice/);
    assert.throws(() => parseHcl(`a = ${'['.repeat(100)}`), /nested too deeply/);
  });
});
