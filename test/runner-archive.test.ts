// The configuration archive a job unpacks: what it refuses before writing anything.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { checkArchive, MAX_UNPACKED_BYTES, unpackArchive, UnsafeArchiveError } from '../src/archive.ts';
import { countChanges, redactPlanJson, scrub } from '../src/runner/redact.ts';
import { suite } from './helpers/harness.ts';
import { createWorkspace } from './helpers/projects.ts';

/** One ustar entry, written by hand so that entries no tar tool would make can be tried. */
function entry(name: string, type: string, body = '', linkname = '', size = Buffer.byteLength(body)): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100);
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write(type, 156, 1);
  h.write(linkname, 157, 100);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const data = Buffer.alloc(Math.ceil(Buffer.byteLength(body) / 512) * 512);
  data.write(body);
  return Buffer.concat([h, data]);
}
const archive = (...entries: Buffer[]) => gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

describe('configuration archives', () => {
  it('unpacks an ordinary archive', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hangar-archive-'));
    try {
      await unpackArchive(
        archive(
          entry('main.tf', '0', 'resource "terraform_data" "a" {}\n'),
          entry('modules/', '5'),
          entry('modules/x.tf', '0', '# x\n'),
          entry('link.tf', '2', '', 'main.tf'),
        ),
        dir,
      );
      assert.match(readFileSync(path.join(dir, 'main.tf'), 'utf8'), /terraform_data/);
      assert.equal(readFileSync(path.join(dir, 'modules/x.tf'), 'utf8'), '# x\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [what, bad, why] of [
    ['an absolute path', entry('/etc/cron.d/x', '0', 'x'), /absolute/],
    ['a ".." path', entry('../../x.tf', '0', 'x'), /"\.\."/],
    ['a ".." inside a path', entry('a/../../x.tf', '0', 'x'), /"\.\."/],
    ['a symbolic link out', entry('out', '2', '', '../../etc/passwd'), /links out/],
    ['an absolute symbolic link', entry('out', '2', '', '/etc/passwd'), /links out/],
    ['a hard link out', entry('out', '1', '', '../secret'), /links out/],
    ['a character device', entry('dev', '3'), /CharacterDevice/],
    ['a block device', entry('dev', '4'), /BlockDevice/],
    ['a FIFO', entry('fifo', '6'), /FIFO/],
  ] as const) {
    it(`refuses ${what}`, async () => {
      await assert.rejects(checkArchive(archive(entry('main.tf', '0', 'x'), bad)), (e: Error) => e instanceof UnsafeArchiveError && why.test(e.message));
    });
  }

  it('refuses more than it would unpack, without reading it all (a decompression bomb)', async () => {
    // A header claiming more than the cap, followed by zeros that compress to almost nothing.
    const big = Buffer.concat([entry('big', '0', '', '', MAX_UNPACKED_BYTES + 1), Buffer.alloc(MAX_UNPACKED_BYTES + 1024)]);
    const bomb = gzipSync(big);
    assert.ok(bomb.length < 1024 * 1024);
    await assert.rejects(checkArchive(bomb), /MiB once unpacked/);
  });

  it('refuses what is not an archive (accepted as it is when asked: an upload is stored, its run errors)', async () => {
    await assert.rejects(checkArchive(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3])), UnsafeArchiveError);
    await checkArchive(Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), { unreadable: 'accept' });
    await assert.rejects(checkArchive(archive(entry('../x', '0', 'x')), { unreadable: 'accept' }), /"\.\."/);
  });
});

describe('redaction', () => {
  it('scrubs secrets from text and the JSON plan, masking what Terraform marks sensitive', () => {
    assert.equal(scrub('token=abc123 and abc123', ['abc123']), 'token=(sensitive value) and (sensitive value)');
    const plan = {
      configuration: { root_module: { variables: { pw: { sensitive: true } } } },
      variables: { pw: { value: 'p4ss' }, name: { value: 'n' } },
      resource_changes: [{ change: { actions: ['create'], before: null, after: { a: 'p4ss', b: 'ok' }, after_sensitive: { a: true } } }],
      planned_values: {
        root_module: { resources: [{ values: { a: 'p4ss' }, sensitive_values: { a: true } }] },
        outputs: { o: { sensitive: true, value: 'p4ss' } },
      },
    };
    const out = redactPlanJson(JSON.stringify(plan), []);
    assert.doesNotMatch(out, /p4ss/);
    assert.equal(JSON.parse(out).variables.name.value, 'n');
    assert.deepEqual(countChanges(JSON.stringify(plan)), { additions: 1, changes: 0, destructions: 0, imports: 0 });
  });
});

suite('unsafe configuration archives at upload', (ctx) => {
  it('are refused with 422 before any run sees them; the version stays pending', async () => {
    const org = await ctx.organization();
    const ws = await createWorkspace(ctx, org);
    const cv = await ctx.post(`/api/v2/workspaces/${ws.id}/configuration-versions`, org.owner.token, { data: { type: 'configuration-versions' } });
    const url = new URL(cv.body.data.attributes['upload-url']).pathname;
    for (const bad of [entry('../escape.tf', '0', 'x'), entry('link', '2', '', '/etc/passwd'), entry('dev', '3')]) {
      const res = await ctx.app.inject({ method: 'PUT', url, payload: archive(entry('main.tf', '0', 'x'), bad) });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(JSON.parse(res.body).errors[0].source.pointer, '/');
    }
    assert.equal((await ctx.get(`/api/v2/configuration-versions/${cv.body.data.id}`, org.owner.token)).body.data.attributes.status, 'pending');
    const ok = await ctx.app.inject({ method: 'PUT', url, payload: archive(entry('main.tf', '0', 'x')) });
    assert.equal(ok.statusCode, 200);
  });
});
