// The blob store on both backends (database rows, HANGAR_BLOB_DIR files) and both databases:
// bytes round-trip, are sealed at rest, cannot be moved under another key, keys never become
// paths outside the directory, appends from many writers at once each land whole, and rotation
// and start-up reseal what needs it.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BlobKeyError, type BlobKey } from '../src/blobs/keys.ts';
import { createBlobStore, type BlobStore } from '../src/blobs/store.ts';
import { Keyring } from '../src/crypto/keyring.ts';
import type { Database } from '../src/db/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { dialects, scratchDatabase } from './helpers/harness.ts';

const SECRET = 'password = "hunter2-very-secret"';

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

for (const dialect of dialects()) {
  for (const backend of ['database', 'filesystem'] as const) {
    describe(`blob store [${dialect}, ${backend}]`, () => {
      let database: Database;
      let drop: () => Promise<void>;
      let dir: string;
      let ring: Keyring;
      const oldKey = randomBytes(32);
      let blobs: BlobStore;
      const make = (keyring: Keyring) => createBlobStore({ database, keyring, blobDir: backend === 'filesystem' ? dir : null });
      const key = (owner: string, name = 'state'): BlobKey => ({ family: 'state-versions', owner, name });
      const log = (owner: string): BlobKey => ({ family: 'jobs', owner, name: 'log' });

      /** Every stored byte, raw: the rows' bodies or the files' contents. */
      async function atRest(): Promise<Buffer[]> {
        if (backend === 'filesystem') return filesUnder(dir).map((f) => readFileSync(f));
        return (await database.db.selectFrom('blobs').select('body').execute()).map((r) => Buffer.from(r.body));
      }

      /** Each stored part of `k` in order: its codec and how many sealed bytes it keeps. */
      async function storedParts(k: BlobKey): Promise<Array<{ codec: string | null; bytes: number }>> {
        if (backend === 'filesystem') {
          const d = path.join(dir, k.family, k.owner, k.name);
          return readdirSync(d)
            .sort()
            .map((f) => {
              const raw = readFileSync(path.join(d, f));
              const nl = raw.indexOf(0x0a);
              const [, codec = null] = raw.subarray(0, nl).toString().split(' ');
              return { codec, bytes: raw.length - nl - 1 };
            });
        }
        const rows = await database.db
          .selectFrom('blobs')
          .select(['codec', 'body'])
          .where('family', '=', k.family)
          .where('owner', '=', k.owner)
          .where('name', '=', k.name)
          .orderBy('part')
          .execute();
        return rows.map((r) => ({ codec: r.codec, bytes: r.body.byteLength }));
      }

      before(async () => {
        const scratch = await scratchDatabase(dialect);
        database = scratch.database;
        drop = scratch.drop;
        await migrateToLatest(database);
        dir = mkdtempSync(path.join(tmpdir(), 'hangar-blobs-'));
        ring = new Keyring([oldKey]);
        blobs = make(ring);
      });
      after(async () => {
        await drop();
        rmSync(dir, { recursive: true, force: true });
      });

      it('round-trips bytes, replaces on put, lists names and deletes', async () => {
        const bytes = Buffer.concat([Buffer.from(SECRET), randomBytes(5000), Buffer.from([0, 255, 10, 13])]);
        await blobs.put(key('sv-roundtrip0001'), bytes);
        assert.deepEqual(await blobs.get(key('sv-roundtrip0001')), bytes);
        await blobs.put(key('sv-roundtrip0001'), Buffer.from('second'));
        assert.equal((await blobs.get(key('sv-roundtrip0001')))!.toString(), 'second');
        await blobs.put(key('sv-roundtrip0001', 'json-state'), Buffer.alloc(0));
        assert.deepEqual(await blobs.get(key('sv-roundtrip0001', 'json-state')), Buffer.alloc(0));
        assert.deepEqual((await blobs.names('state-versions', 'sv-roundtrip0001')).sort(), ['json-state', 'state']);
        assert.equal(await blobs.get(key('sv-nothinghere001')), undefined);
        await blobs.delete(key('sv-roundtrip0001'));
        assert.equal(await blobs.get(key('sv-roundtrip0001')), undefined);
        assert.deepEqual(await blobs.names('state-versions', 'sv-roundtrip0001'), ['json-state']);
      });

      it('compresses a whole blob that packs, and leaves gzip and zip as they came', async () => {
        const state = Buffer.from(JSON.stringify({ version: 4, resources: Array.from({ length: 300 }, (_, i) => ({ name: `r${i}`, secret: SECRET })) }));
        const gzip = Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('x'.repeat(4000))]);
        const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('y'.repeat(4000))]);
        await blobs.put(key('sv-packedwhole001'), state);
        assert.equal(await blobs.create(key('sv-packedwhole001', 'archive'), gzip), true);
        await blobs.put(key('sv-packedwhole001', 'plan-file'), zip);
        for (const [name, bytes] of [
          ['state', state],
          ['archive', gzip],
          ['plan-file', zip],
        ] as const) {
          assert.ok((await blobs.get(key('sv-packedwhole001', name)))!.equals(bytes), name);
        }
        const [kept] = await storedParts(key('sv-packedwhole001'));
        const [archive] = await storedParts(key('sv-packedwhole001', 'archive'));
        const [planFile] = await storedParts(key('sv-packedwhole001', 'plan-file'));
        assert.equal(kept!.codec, 'zstd');
        assert.ok(kept!.bytes < state.length / 5, `${kept!.bytes} bytes kept of ${state.length}`);
        assert.deepEqual([archive!.codec, planFile!.codec], [null, null], 'compressed formats are not compressed again');
        for (const bytes of await atRest()) assert.ok(!bytes.includes('hunter2'));
      });

      it('creates once: a second create under the same key is refused and changes nothing', async () => {
        assert.equal(await blobs.create(key('sv-createonce0001'), Buffer.from('first')), true);
        assert.equal(await blobs.create(key('sv-createonce0001'), Buffer.from('second')), false);
        assert.equal((await blobs.get(key('sv-createonce0001')))!.toString(), 'first');
      });

      it('keeps every byte sealed at rest, under the key id of the sealing key', async () => {
        await blobs.put(key('sv-sealedatrest01'), Buffer.from(SECRET));
        await blobs.append(log('plan-sealedatrest01'), Buffer.from(SECRET));
        const raw = await atRest();
        assert.ok(raw.length >= 2);
        for (const bytes of raw) assert.ok(!bytes.includes('hunter2'), 'no plaintext at rest');
        if (backend === 'filesystem') {
          for (const f of filesUnder(dir)) {
            // The header line: the key id, and for a compressed part its codec and size.
            assert.equal(readFileSync(f, 'utf8').split('\n')[0]!.split(' ')[0], ring.primaryKeyId);
            assert.equal(statSync(f).mode & 0o077, 0, 'blob files are private');
          }
        } else {
          const ids = await database.db.selectFrom('blobs').select('key_id').distinct().execute();
          assert.deepEqual(
            ids.map((r) => r.key_id),
            [ring.primaryKeyId],
          );
        }
        assert.deepEqual(await blobs.keyIds(), [ring.primaryKeyId]);
      });

      it('does not open a part moved under another key', async () => {
        await blobs.put(key('sv-movedfrom00001'), Buffer.from(SECRET));
        if (backend === 'filesystem') {
          const from = path.join(dir, 'state-versions', 'sv-movedfrom00001', 'state');
          const to = path.join(dir, 'state-versions', 'sv-movedto0000001', 'state');
          await import('node:fs/promises').then((fs) => fs.cp(from, to, { recursive: true }));
        } else {
          const row = await database.db.selectFrom('blobs').selectAll().where('owner', '=', 'sv-movedfrom00001').executeTakeFirstOrThrow();
          await database.db
            .insertInto('blobs')
            .values({ ...row, owner: 'sv-movedto0000001' })
            .execute();
        }
        await assert.rejects(blobs.get(key('sv-movedto0000001')), /failed authentication/);
        await blobs.delete(key('sv-movedto0000001'));
      });

      it('refuses keys that could name a path outside the store, and writes nothing for them', async () => {
        const before = filesUnder(dir).length;
        const bad: BlobKey[] = [
          key('..'),
          key('../escape'),
          key('a/b'),
          key('.hidden'),
          key(''),
          key('sv-x', '..'),
          key('sv-x', '../../etc'),
          key('sv-x', 'a\\b'),
          key('sv-x', 'nul\0byte'),
          key('sv-x', 'x'.repeat(200)),
          { family: '../jobs' as never, owner: 'sv-x', name: 'state' },
        ];
        for (const k of bad) {
          await assert.rejects(blobs.put(k, Buffer.from('x')), BlobKeyError, JSON.stringify(k));
          await assert.rejects(blobs.get(k), BlobKeyError);
          await assert.rejects(blobs.append(k, Buffer.from('x')), BlobKeyError);
          await assert.rejects(blobs.delete(k), BlobKeyError);
        }
        assert.equal(filesUnder(dir).length, before);
        assert.ok(!existsSync(path.join(path.dirname(dir), 'escape')) && !existsSync(path.join(dir, '..', 'sv-x')));
      });

      it('appends from many writers at once: every chunk lands whole, none overlaps, the size adds up', async () => {
        const chunks = Array.from({ length: 24 }, (_, i) => Buffer.from(`<chunk ${String(i).padStart(2, '0')}:${'x'.repeat(i * 7)}>`));
        const ends = await Promise.all(chunks.map((c) => blobs.append(log('plan-concurrent001'), c)));
        const total = chunks.reduce((n, c) => n + c.length, 0);
        assert.equal(Math.max(...ends), total);
        assert.equal(new Set(ends).size, chunks.length);
        assert.equal(await blobs.size(log('plan-concurrent001')), total);
        const whole = (await blobs.read(log('plan-concurrent001'), 0, total)).toString();
        assert.equal(whole.length, total);
        for (const c of chunks) assert.ok(whole.includes(c.toString()), `chunk ${c.toString().slice(0, 10)} whole`);
      });

      it('reads a log by offset and limit, across part boundaries', async () => {
        const parts = ['hello ', 'brave ', 'new ', 'world'];
        for (const p of parts) await blobs.append(log('plan-offsets00001'), Buffer.from(p));
        const text = parts.join('');
        for (const [start, end] of [
          [0, text.length],
          [0, 3],
          [4, 9],
          [6, 12],
          [11, 100],
          [text.length, text.length + 5],
          [20, 20],
        ] as const) {
          assert.equal((await blobs.read(log('plan-offsets00001'), start, end)).toString(), text.slice(start, end), `${start}-${end}`);
        }
        assert.equal((await blobs.read(log('plan-nolog0000001'), 0, 10)).length, 0);
      });

      it('drops the blobs of owners the database queued as deleted', async () => {
        await blobs.put(key('sv-sweptaway0001'), Buffer.from('gone soon'));
        await blobs.append(log('plan-sweptaway001'), Buffer.from('gone soon'));
        await database.db
          .insertInto('blob_deletions')
          .values([
            { family: 'state-versions', owner: 'sv-sweptaway0001' },
            { family: 'jobs', owner: 'plan-sweptaway001' },
          ])
          .execute();
        assert.ok((await blobs.sweep()) >= 2);
        assert.equal(await blobs.get(key('sv-sweptaway0001')), undefined);
        assert.equal(await blobs.size(log('plan-sweptaway001')), 0);
        assert.equal((await database.db.selectFrom('blob_deletions').selectAll().execute()).length, 0);
        if (backend === 'filesystem') assert.ok(!existsSync(path.join(dir, 'state-versions', 'sv-sweptaway0001')));
      });
      it('seals at start-up what an older release kept unsealed (moving it into the directory when one is set)', async () => {
        const archive = Buffer.from(`tarball with ${SECRET}`);
        await database.db
          .insertInto('blobs')
          .values({
            family: 'configuration-versions',
            owner: 'cv-legacyarchive1',
            name: 'archive',
            part: 0,
            key_id: null,
            body: archive,
            size: archive.length,
            created_at: new Date().toISOString(),
          })
          .execute();
        assert.deepEqual(
          await blobs.get({ family: 'configuration-versions', owner: 'cv-legacyarchive1', name: 'archive' }),
          backend === 'database' ? archive : undefined,
        );
        const { moved, sealed } = await blobs.prepare();
        assert.equal(moved, backend === 'filesystem' ? 1 : 0);
        assert.equal(sealed, 1);
        assert.deepEqual(await blobs.get({ family: 'configuration-versions', owner: 'cv-legacyarchive1', name: 'archive' }), archive);
        for (const bytes of await atRest()) assert.ok(!bytes.includes('hunter2'));
        if (backend === 'filesystem') assert.equal((await database.db.selectFrom('blobs').selectAll().execute()).length, 0);
        assert.deepEqual(await blobs.prepare(), { moved: 0, sealed: 0 });
      });

      it('compresses a log part when that makes it smaller, and reads every range back exactly', async () => {
        const logKey = log('plan-compressed001');
        // Plan-like text packs many times over; random bytes do not pack; a short line is not worth it.
        const text = Buffer.from(Array.from({ length: 2000 }, (_, i) => `  + item[${i}] = "${i % 7 === 0 ? SECRET : 'value'}"\n`).join(''));
        const noise = randomBytes(4096);
        const short = Buffer.from('Plan: 2000 to add, 0 to change, 0 to destroy.\n');
        const whole = Buffer.concat([text, noise, short]);
        assert.equal(await blobs.append(logKey, text), text.length);
        assert.equal(await blobs.size(logKey), text.length, 'a compressed last part still tells where the log ends');
        await blobs.append(logKey, noise);
        await blobs.append(logKey, short);
        assert.equal(await blobs.size(logKey), whole.length);

        const stored = await storedParts(logKey);
        assert.deepEqual(
          stored.map((p) => p.codec),
          ['zstd', null, null],
        );
        assert.ok(stored[0]!.bytes < text.length / 5, `${stored[0]!.bytes} bytes kept of ${text.length}`);
        for (const bytes of await atRest()) assert.ok(!bytes.includes('hunter2'), 'compressed, then sealed');

        for (const [start, end] of [
          [0, whole.length],
          [0, 1],
          [text.length - 3, text.length + 3],
          [12_345, 23_456],
          [text.length + noise.length - 1, whole.length + 10],
        ] as const) {
          assert.ok((await blobs.read(logKey, start, end)).equals(whole.subarray(start, end)), `${start}-${end}`);
        }

        if (backend === 'filesystem') {
          // A compressed part the database kept moves into the directory as it is, and still reads.
          const inDatabase = createBlobStore({ database, keyring: ring, blobDir: null });
          await inDatabase.append(log('plan-movedpacked01'), text);
          assert.deepEqual(await blobs.prepare(), { moved: 1, sealed: 0 });
          assert.ok((await blobs.read(log('plan-movedpacked01'), 0, text.length)).equals(text));
          assert.equal(await blobs.size(log('plan-movedpacked01')), text.length);
        }
      });

      // Last: afterwards everything is sealed with a key the suite's store does not hold.
      it('reseals every part with a new primary key, which alone opens them then', async () => {
        await blobs.put(key('sv-rotation00001'), Buffer.from(SECRET));
        await blobs.append(log('plan-rotation0001'), Buffer.from('one '));
        await blobs.append(log('plan-rotation0001'), Buffer.from('two'));
        const packed = Buffer.from('a line that packs well\n'.repeat(200));
        await blobs.append(log('plan-rotation0002'), packed);
        const fresh = randomBytes(32);
        const resealed = await make(new Keyring([fresh, oldKey])).reseal({ batchSize: 2 });
        assert.ok(resealed >= 4, String(resealed));
        const after = make(new Keyring([fresh]));
        assert.deepEqual(await after.keyIds(), [new Keyring([fresh]).primaryKeyId]);
        assert.equal((await after.get(key('sv-rotation00001')))!.toString(), SECRET);
        assert.equal((await after.read(log('plan-rotation0001'), 0, 100)).toString(), 'one two');
        assert.ok((await after.read(log('plan-rotation0002'), 0, packed.length)).equals(packed), 'a compressed part stays compressed and opens');
        assert.equal(await make(new Keyring([fresh])).reseal(), 0);
        await assert.rejects(blobs.get(key('sv-rotation00001')), /not configured/);
      });
    });
  }
}
