// A workspace's resources (`GET /workspaces/:id/resources`): one per managed resource instance of
// the current state, with ids and creation dates that last across versions.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { suite } from './helpers/harness.ts';
import { assertError, assertStatus } from './helpers/assert.ts';
import { createProject, createWorkspace, grant, memberWithAccess } from './helpers/projects.ts';
import { settledStatements } from './helpers/settled.ts';
import { createStateVersion } from './helpers/state.ts';
import { instanceAddress, modulePath, providerName } from '../src/state-versions/resource-instances.ts';

const SECRET = 'do-not-show-this-attribute-value';

/** A state as Terraform writes it: a root resource, a counted one in a module, a for_each one, a data source. */
function state(serial: number, o: { petLength?: number; extra?: boolean } = {}): Buffer {
  const resources: unknown[] = [
    {
      mode: 'managed',
      type: 'random_pet',
      name: 'name',
      provider: 'provider["registry.terraform.io/hashicorp/random"]',
      instances: [{ schema_version: 0, attributes: { id: `pet-${SECRET}`, length: o.petLength ?? 2 } }],
    },
    {
      module: 'module.media_bucket',
      mode: 'managed',
      type: 'aws_s3_bucket_public_access_block',
      name: 'this',
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [
        { index_key: 0, schema_version: 0, attributes: { bucket: `b0-${SECRET}` } },
        { index_key: 1, schema_version: 0, attributes: { bucket: `b1-${SECRET}` } },
      ],
    },
    {
      mode: 'managed',
      type: 'terraform_data',
      name: 'each',
      provider: 'provider["terraform.io/builtin/terraform"]',
      instances: [{ index_key: 'blue', schema_version: 0, attributes: { input: SECRET } }],
    },
    {
      mode: 'data',
      type: 'aws_caller_identity',
      name: 'current',
      provider: 'provider["registry.terraform.io/hashicorp/aws"]',
      instances: [{ schema_version: 0, attributes: { account_id: SECRET } }],
    },
  ];
  if (o.extra) {
    resources.push({
      mode: 'managed',
      type: 'random_id',
      name: 'extra',
      provider: 'provider["registry.terraform.io/hashicorp/random"]',
      instances: [{ schema_version: 0, attributes: { hex: SECRET } }],
    });
  }
  const doc = {
    version: 4,
    terraform_version: '1.11.4',
    serial,
    lineage: '0f2b8c1e-resources',
    outputs: { o: { value: SECRET, type: 'string', sensitive: true } },
    resources,
    check_results: null,
  };
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n');
}

suite('workspace resources', (ctx) => {
  const list = (wsId: string, token: string | null, query = '') => ctx.get(`/api/v2/workspaces/${wsId}/resources${query}`, token);

  it('derives names, modules, providers and addresses without attribute values', () => {
    assert.equal(modulePath('module.a'), 'a');
    assert.equal(modulePath('module.a[0].module.b'), 'a[0].b');
    assert.equal(modulePath('module.a["x.module.y"].module.b'), 'a["x.module.y"].b');
    assert.equal(modulePath(undefined), 'root');
    assert.equal(providerName('provider["registry.terraform.io/hashicorp/aws"]'), 'hashicorp/aws');
    assert.equal(providerName('provider["registry.terraform.io/hashicorp/aws"].west'), 'hashicorp/aws');
    assert.equal(providerName('provider["terraform.io/builtin/terraform"]'), 'builtin/terraform');
    assert.equal(providerName('provider.aws'), 'hashicorp/aws');
    assert.equal(providerName('module.m.provider.aws.west'), 'hashicorp/aws');
    assert.equal(instanceAddress('root', 'random_pet', 'name', null), 'random_pet.name');
    assert.equal(instanceAddress('a.b', 't', 'n', 3), 'a.b.t.n[3]');
    assert.equal(instanceAddress('root', 't', 'n', 'k"ey'), 't.n["k\\"ey"]');
  });

  it("lists the current state's managed resource instances, paged, data sources left out", async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const sv = await createStateVersion(ctx, w.id, t, state(1), 1);

    const res = await list(w.id, t);
    assertStatus(res, 200);
    assert.ok(!res.raw.includes(SECRET), 'an attribute value in the answer');
    assert.equal(res.body.meta.pagination['total-count'], 4);
    assert.equal(res.body.meta.pagination['current-page'], 1);
    assert.equal(res.body.meta.pagination['page-size'], 20);
    const byAddress = Object.fromEntries(res.body.data.map((r: any) => [r.attributes.address, r]));
    assert.deepEqual(Object.keys(byAddress), [
      'random_pet.name',
      'media_bucket.aws_s3_bucket_public_access_block.this[0]',
      'media_bucket.aws_s3_bucket_public_access_block.this[1]',
      'terraform_data.each["blue"]',
    ]);
    const pet = byAddress['random_pet.name'];
    assert.equal(pet.type, 'resources');
    assert.match(pet.id, /^wsr-[0-9A-Za-z]{16}$/);
    assert.deepEqual(
      { ...pet.attributes, 'created-at': undefined, 'updated-at': undefined },
      {
        address: 'random_pet.name',
        name: 'name',
        'created-at': undefined,
        'updated-at': undefined,
        module: 'root',
        provider: 'hashicorp/random',
        'provider-type': 'random_pet',
        'modified-by-state-version-id': sv.id,
        'name-index': null,
      },
    );
    assert.match(pet.attributes['created-at'], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const counted = byAddress['media_bucket.aws_s3_bucket_public_access_block.this[0]'].attributes;
    assert.equal(counted.module, 'media_bucket');
    assert.equal(counted.name, 'this');
    assert.equal(counted.provider, 'hashicorp/aws');
    assert.equal(counted['name-index'], '0');
    const each = byAddress['terraform_data.each["blue"]'].attributes;
    assert.equal(each.provider, 'builtin/terraform');
    assert.equal(each['name-index'], 'blue');
    assert.equal(new Set(res.body.data.map((r: any) => r.id)).size, 4);

    // Paging, and a page past the end that still counts them all.
    const second = await list(w.id, t, '?page%5Bnumber%5D=2&page%5Bsize%5D=3');
    assertStatus(second, 200);
    assert.deepEqual(
      second.body.data.map((r: any) => r.attributes.address),
      ['terraform_data.each["blue"]'],
    );
    assert.equal(second.body.meta.pagination['total-pages'], 2);
    assert.equal(second.body.meta.pagination['prev-page'], 1);
    const past = await list(w.id, t, '?page%5Bnumber%5D=999&page%5Bsize%5D=100');
    assertStatus(past, 200);
    assert.deepEqual(past.body.data, []);
    assert.equal(past.body.meta.pagination['current-page'], 999);
    assert.equal(past.body.meta.pagination['total-count'], 4);
    assertError(await list(w.id, t, '?page%5Bsize%5D=0'), 400);
  });

  it('keeps ids and creation across versions, and moves modified-by only where the attributes changed', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const first = await createStateVersion(ctx, w.id, t, state(1), 1);
    const before = Object.fromEntries((await list(w.id, t)).body.data.map((r: any) => [r.attributes.address, r]));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await createStateVersion(ctx, w.id, t, state(2, { petLength: 3, extra: true }), 2);
    const res = await list(w.id, t);
    assertStatus(res, 200);
    assert.equal(res.body.meta.pagination['total-count'], 5);
    const after = Object.fromEntries(res.body.data.map((r: any) => [r.attributes.address, r]));

    const pet = after['random_pet.name'];
    assert.equal(pet.id, before['random_pet.name'].id);
    assert.equal(pet.attributes['created-at'], before['random_pet.name'].attributes['created-at']);
    assert.equal(pet.attributes['modified-by-state-version-id'], second.id);
    assert.ok(pet.attributes['updated-at'] > pet.attributes['created-at']);

    const bucket = after['media_bucket.aws_s3_bucket_public_access_block.this[0]'];
    const bucketBefore = before['media_bucket.aws_s3_bucket_public_access_block.this[0]'];
    assert.equal(bucket.id, bucketBefore.id);
    assert.deepEqual(bucket.attributes, bucketBefore.attributes);
    assert.equal(bucket.attributes['modified-by-state-version-id'], first.id);

    const extra = after['random_id.extra'].attributes;
    assert.equal(extra['modified-by-state-version-id'], second.id);
    assert.equal(extra['created-at'], extra['updated-at']);

    // The same address in another workspace is another resource.
    const other = await createWorkspace(ctx, org);
    await createStateVersion(ctx, other.id, t, state(1), 1);
    const elsewhere = (await list(other.id, t)).body.data.find((r: any) => r.attributes.address === 'random_pet.name');
    assert.notEqual(elsewhere.id, pet.id);
  });

  it('reads a version stored before the list was kept from its state file, and carries it forward', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const t = org.owner.token;
    const old = await createStateVersion(ctx, w.id, t, state(1), 1);
    await ctx.database.db.updateTable('state_versions').set({ resource_instances: null }).where('id', '=', old.id).execute();
    const res = await list(w.id, t);
    assertStatus(res, 200);
    assert.equal(res.body.meta.pagination['total-count'], 4);
    for (const r of res.body.data) assert.equal(r.attributes['modified-by-state-version-id'], old.id);
    // The GET wrote nothing back.
    const row = await ctx.database.db.selectFrom('state_versions').select('resource_instances').where('id', '=', old.id).executeTakeFirstOrThrow();
    assert.equal(row.resource_instances, null);

    const next = await createStateVersion(ctx, w.id, t, state(2, { petLength: 5 }), 2);
    const after = Object.fromEntries((await list(w.id, t)).body.data.map((r: any) => [r.attributes.address, r.attributes]));
    assert.equal(after['random_pet.name']['modified-by-state-version-id'], next.id);
    assert.equal(after['terraform_data.each["blue"]']['modified-by-state-version-id'], old.id);
    assert.equal(after['random_pet.name']['created-at'], res.body.data[0].attributes['created-at']);
  });

  it('reads one row after finding the workspace: the current version, no state file and no other version', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    await createStateVersion(ctx, w.id, org.owner.token, state(1), 1);
    await createStateVersion(ctx, w.id, org.owner.token, state(2, { extra: true }), 2);
    const member = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    for (const token of [org.owner.token, member.token]) {
      await list(w.id, token); // the caller's caches, and the compiled statements
      const { result, statements } = await settledStatements(ctx, () => list(w.id, token, '?page%5Bsize%5D=2'), 2);
      assertStatus(result, 200);
      assert.equal(result.body.meta.pagination['total-count'], 5);
      assert.equal(statements.length, 2, statements.join('\n'));
      assert.match(statements[0]!, /from "workspaces"/, 'the workspace');
      assert.match(statements[1]!, /from "state_versions"/, 'the current version');
      assert.doesNotMatch(statements.join('\n'), /"blobs"/, 'no state file');
    }
  });

  it('answers an empty list for a workspace without state', async () => {
    const org = await ctx.organization();
    const w = await createWorkspace(ctx, org);
    const res = await list(w.id, org.owner.token);
    assertStatus(res, 200);
    assert.deepEqual(res.body.data, []);
    assert.equal(res.body.meta.pagination['total-count'], 0);
  });

  it('refuses callers who may not see the workspace or read its state', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org);
    const w = await createWorkspace(ctx, org, project.id);
    await createStateVersion(ctx, w.id, org.owner.token, state(1), 1);

    assertError(await list(w.id, null), 401);
    assertError(await list('ws-doesnotexist0000', org.owner.token), 404);
    assertError(await list('not-an-id', org.owner.token), 404);
    const stranger = await ctx.organization();
    assertError(await list(w.id, stranger.owner.token), 404);
    const otherWorkspace = await createWorkspace(ctx, stranger);
    assertError(await list(otherWorkspace.id, org.owner.token), 404);

    // A member who sees nothing of the project: 404. One who may read outputs but not the state: 403, as for the versions.
    const outsider = await ctx.member(org);
    assertError(await list(w.id, outsider.token), 404);
    const outputsOnly = await ctx.member(org);
    await grant(ctx, org, outputsOnly.teamId, project.id, 'custom', { 'workspace-access': { 'state-versions': 'read-outputs' } });
    assertError(await ctx.get(`/api/v2/workspaces/${w.id}/current-state-version`, outputsOnly.token), 403);
    const refused = await list(w.id, outputsOnly.token);
    assertError(refused, 403);
    assert.ok(!refused.raw.includes(SECRET));
    const reader = await memberWithAccess(ctx, org, [[project.id, 'read']]);
    const read = await list(w.id, reader.token);
    assertStatus(read, 200);
    assert.equal(read.body.data.length, 4);
    assert.ok(!read.raw.includes(SECRET));
  });
});
