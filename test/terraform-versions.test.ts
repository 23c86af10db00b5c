// Other Terraform versions than the runner's own: a workspace's `terraform-version` is fetched
// from HANGAR_TERRAFORM_MIRROR (a mirror this test serves: a zip holding a `terraform` script that
// says which version it is and hands over to the real binary), checked against its SHA256SUMS,
// kept under the data directory and fetched once however many jobs want it at the same moment; a
// bad checksum or no mirror at all errors the run with a log that says so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateRawSync } from 'node:zlib';
import { startRunner } from '../src/runner/start.ts';
import { terraformSettings } from '../src/runner/terraform.ts';
import { chooseTerraform, satisfies, unzipEntry, zipName } from '../src/runner/versions.ts';
import type { Workers } from '../src/runner/workers.ts';
import { assertStatus } from './helpers/assert.ts';
import { suite } from './helpers/harness.ts';
import { createWorkspace } from './helpers/projects.ts';
import { configArchive } from './helpers/runner.ts';

const real = spawnSync('sh', ['-c', 'command -v terraform'], { encoding: 'utf8' }).stdout.trim();
const skip = !real && 'terraform is not installed';

/** A zip of one file, deflated or stored, as a release archive holds its binary. */
function zipOf(name: string, data: Buffer, deflate = true): Buffer {
  const body = deflate ? deflateRawSync(data) : data;
  const nameBytes = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(deflate ? 8 : 0, 8);
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(body.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(deflate ? 8 : 0, 10);
  central.writeUInt32LE(crc32(data), 16);
  central.writeUInt32LE(body.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE(0, 42);
  const centralAt = local.length + nameBytes.length + body.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, nameBytes, body, central, nameBytes, end]);
}

/** A `terraform` that names its version in a plan's log, then is the real one. */
const wrapper = (version: string) =>
  Buffer.from(
    `#!/bin/sh\nif [ "$1" = plan ]; then echo "mirrored terraform ${version} here"; echo "cache=$TF_PLUGIN_CACHE_DIR config=$TF_CLI_CONFIG_FILE"; fi\nexec "${real}" "$@"\n`,
  );

/** A releases-layout mirror: 1.99.0 good, 1.98.0 with a wrong sum; counts the zips it serves. */
function mirror(): Promise<{ url: string; server: Server; zipHits: Map<string, number> }> {
  const files = new Map<string, Buffer>();
  for (const [version, good] of [
    ['1.99.0', true],
    ['1.98.0', false],
    ['1.97.0', true],
  ] as const) {
    const zip = zipOf('terraform', wrapper(version), version !== '1.97.0');
    const sum = good ? createHash('sha256').update(zip).digest('hex') : createHash('sha256').update('something else').digest('hex');
    files.set(`/${version}/${zipName(version)}`, zip);
    files.set(
      `/${version}/terraform_${version}_SHA256SUMS`,
      Buffer.from(`${'0'.repeat(64)}  terraform_${version}_other_os.zip\n${sum}  ${zipName(version)}\n`),
    );
  }
  const zipHits = new Map<string, number>();
  const server = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (req.url?.endsWith('.zip')) zipHits.set(req.url, (zipHits.get(req.url) ?? 0) + 1);
    res.writeHead(body ? 200 : 404).end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as any).port}/`, server, zipHits })),
  );
}

describe('terraform version constraints and release archives', () => {
  it('reads constraints as Terraform does', () => {
    assert.ok(satisfies('1.11.4', '~> 1.5'));
    assert.ok(!satisfies('2.0.0', '~> 1.5'));
    assert.ok(satisfies('1.5.9', '~> 1.5.2'));
    assert.ok(!satisfies('1.6.0', '~> 1.5.2'));
    assert.ok(satisfies('1.11.4', '>= 1.2, < 2.0'));
    assert.ok(!satisfies('1.11.4', '>= 1.2, < 1.10'));
    assert.ok(satisfies('1.11.4', '1.11.4') && satisfies('1.11.4', '!= 1.11.3'));
    assert.ok(!satisfies('1.12.0-beta1', '>= 1.0'));
  });
  it('unzips stored and deflated entries, and refuses what is not a zip', () => {
    const data = Buffer.from('#!/bin/sh\necho hi\n'.repeat(50));
    assert.deepEqual(unzipEntry(zipOf('terraform', data), 'terraform', '1.0.0'), data);
    assert.deepEqual(unzipEntry(zipOf('terraform', data, false), 'terraform', '1.0.0'), data);
    assert.throws(() => unzipEntry(zipOf('other', data), 'terraform', '1.0.0'), /Terraform 1.0.0: .*no file named terraform/);
    assert.throws(() => unzipEntry(Buffer.from('not a zip at all, not at all, no.'), 'terraform', '1.0.0'), /not a zip archive/);
  });
  it('fetches a version once however many jobs want it at once, then keeps it', { skip }, async () => {
    const m = await mirror();
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-tfv-'));
    try {
      const settings = terraformSettings(
        { terraformBinary: 'terraform', terraformPluginCacheDir: null, terraformCliConfigFile: null, terraformMirror: m.url, dataDir },
        '/usr/bin:/bin',
      );
      const chosen = await Promise.all(Array.from({ length: 4 }, () => chooseTerraform(settings, '1.11.4', '1.99.0')));
      assert.ok(chosen.every((c) => c.binary === path.join(dataDir, 'terraform', '1.99.0', 'terraform') && c.version === '1.99.0'));
      assert.equal(m.zipHits.get(`/1.99.0/${zipName('1.99.0')}`), 1);
      await chooseTerraform(settings, '1.11.4', '1.99.0');
      assert.equal(m.zipHits.get(`/1.99.0/${zipName('1.99.0')}`), 1);
      // `latest`, the runner's own version and a constraint it meets need nothing fetched.
      for (const wanted of ['latest', '1.11.4', '~> 1.5', null]) assert.equal((await chooseTerraform(settings, '1.11.4', wanted)).binary, 'terraform');
      await assert.rejects(chooseTerraform(settings, '1.11.4', '~> 2.0'), /constraint "~> 2.0" is not met by this runner's Terraform 1.11.4/);
      await assert.rejects(chooseTerraform(settings, '1.11.4', '1.50.0'), /Terraform 1.50.0 could not be fetched from .*HTTP 404/);
    } finally {
      m.server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

suite('runs with another terraform version', (ctx) => {
  let runner: Workers;
  let m: Awaited<ReturnType<typeof mirror>>;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-tfv-'));
  const start = (terraformMirror: string | null, plugins: { cache: string; config: string } | null = null) =>
    startRunner({
      services: ctx.services,
      database: ctx.database,
      config: {
        runnerConcurrency: 2,
        runTimeoutMs: 120_000,
        runMaxLogBytes: 1024 * 1024,
        terraformBinary: 'terraform',
        terraformPluginCacheDir: plugins?.cache ?? null,
        terraformCliConfigFile: plugins?.config ?? null,
        terraformMirror,
        dataDir,
      },
      path: process.env.PATH,
      pollMs: 500,
    });
  before(async () => {
    m = await mirror();
    const stop = ctx.stop.bind(ctx);
    ctx.stop = async () => {
      await runner.stop();
      await stop();
    };
    runner = start(m.url);
  });
  after(() => {
    m.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A plan-only run of a workspace asking for `version`, to its end; its plan's log. */
  async function planWith(version: string): Promise<{ status: string; log: string; run: any }> {
    const org = await ctx.organization();
    const token = org.owner.token;
    const ws = await createWorkspace(ctx, org, undefined, { 'terraform-version': version });
    const cv = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, token, { data: { type: 'configuration-versions', attributes: {} } });
    assertStatus(cv, 201);
    const put = await ctx.app.inject({
      method: 'PUT',
      url: new URL(cv.body.data.attributes['upload-url']).pathname,
      payload: configArchive({ 'main.tf': 'resource "terraform_data" "a" {\n  input = 1\n}\n' }),
    });
    assert.equal(put.statusCode, 200);
    const created = await ctx.post('/api/v2/runs', token, {
      data: { type: 'runs', attributes: {}, relationships: { workspace: { data: { type: 'workspaces', id: ws.id } } } },
    });
    assertStatus(created, 201);
    const until = Date.now() + 120_000;
    for (;;) {
      const res = await ctx.get(`/api/v2/runs/${created.body.data.id}?include=plan`, token);
      const status = res.body.data.attributes.status;
      if (['planned', 'errored', 'planned_and_finished'].includes(status)) {
        const plan = res.body.included[0];
        const log = await ctx.app.inject({ method: 'GET', url: new URL(plan.attributes['log-read-url']).pathname + '?offset=0&limit=1000000' });
        await ctx.post(`/api/v2/runs/${created.body.data.id}/actions/discard`, token, {});
        return { status, log: log.rawPayload.toString('utf8'), run: res.body.data };
      }
      if (Date.now() > until) throw new Error(`run is ${status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('a workspace asking for a mirrored version plans with it', { skip }, async () => {
    const r = await planWith('1.99.0');
    assert.equal(r.status, 'planned', r.log);
    assert.match(r.log, /Terraform v1\.99\.0/);
    assert.match(r.log, /mirrored terraform 1\.99\.0 here/);
    assert.match(r.log, /Plan: 1 to add/);
  });

  it('a bad checksum errors the run, naming the version and the mismatch', { skip }, async () => {
    const r = await planWith('1.98.0');
    assert.equal(r.status, 'errored');
    assert.match(r.log, /Terraform 1\.98\.0: checksum mismatch for terraform_1\.98\.0_\w+_\w+\.zip/);
    assert.doesNotMatch(r.log, /mirrored terraform/);
  });

  it('the runner’s plugin cache and CLI configuration reach the job’s environment', { skip }, async () => {
    const cache = path.join(dataDir, 'plugin-cache');
    const config = path.join(dataDir, 'runner.tfrc');
    writeFileSync(config, `plugin_cache_dir = "${cache}"\n`);
    await runner.stop();
    runner = start(m.url, { cache, config });
    const r = await planWith('1.99.0');
    assert.equal(r.status, 'planned', r.log);
    assert.ok(r.log.includes(`cache=${cache} config=${config}`), r.log);
  });

  it('without a mirror, a version other than the runner’s own errors the run, saying so', { skip }, async () => {
    await runner.stop();
    runner = start(null);
    const r = await planWith('1.97.0');
    assert.equal(r.status, 'errored');
    assert.match(r.log, /Terraform 1\.97\.0 was asked for, but this runner has Terraform \d+\.\d+\.\d+ and no HANGAR_TERRAFORM_MIRROR/);
  });
});
