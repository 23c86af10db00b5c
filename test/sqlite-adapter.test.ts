// The SQLite adapter (db/sqlite.ts): opening a file another process holds locked, and the row
// objects it builds itself from arrays, by the rules node:sqlite's own row objects followed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openSqlite } from '../src/db/sqlite.ts';

describe('SQLite rows', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hangar-sqlite-rows-'));
  const db = openSqlite(path.join(dir, 'rows.db'));
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  db.exec("create table t (id text primary key, n integer, flag integer, note text); insert into t values ('a', 1, 1, null), ('b', 2, 0, 'x')");

  it('come as objects keyed by column name, with their values as stored', () => {
    const rows = db.prepare('select * from t order by id').all([]);
    assert.deepEqual(rows, [
      { id: 'a', n: 1, flag: 1, note: null },
      { id: 'b', n: 2, flag: 0, note: 'x' },
    ]);
    assert.deepEqual([...db.prepare('select id from t where n > ? order by id').iterate([0])], [{ id: 'a' }, { id: 'b' }]);
    // Booleans bind as 0 and 1; undefined as null.
    assert.deepEqual(db.prepare('select id from t where flag = ? and (? is null)').all([true, undefined]), [{ id: 'a' }]);
  });

  it('take the last column of a name that occurs twice', () => {
    assert.deepEqual(db.prepare("select 'first' as v, 'second' as v").all([]), [{ v: 'second' }]);
  });

  it('make every column name a key, whatever it spells, and nothing else', () => {
    const names = ['a b', 'x"y', 'back\\slash', '}; throw new Error("ran"); ({', '__proto__', 'constructor', '0', ''];
    const quoted = names.map((name, i) => `${i} as "${name.replaceAll('"', '""')}"`).join(', ');
    const [row] = db.prepare(`select ${quoted}`).all([]);
    assert.deepEqual(Object.keys(row!).sort(), [...names].sort());
    names.forEach((name, i) => assert.equal(Object.getOwnPropertyDescriptor(row, name)?.value, i, name));
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
  });

  it('keep the statements in use when the cache is full, and let the least recently used go', () => {
    const hot = db.prepare('select id from t where id = ?');
    const cold = db.prepare('select n from t where id = ?');
    // More distinct statements than the cache holds, the hot one asked for all along.
    for (let i = 0; i < 300; i++) {
      db.prepare(`select ${i} as n`);
      assert.equal(db.prepare('select id from t where id = ?'), hot);
    }
    assert.notEqual(db.prepare('select n from t where id = ?'), cold);
    assert.deepEqual(hot.all(['a']), [{ id: 'a' }]);
  });

  it('follow a table whose columns changed under a cached statement', () => {
    const query = 'select * from t where id = ?';
    assert.deepEqual(db.prepare(query).all(['a']), [{ id: 'a', n: 1, flag: 1, note: null }]);
    db.exec("alter table t add column extra text not null default 'e'");
    // The same cached statement: SQLite prepared it again, with one column more.
    assert.deepEqual(db.prepare(query).all(['a']), [{ id: 'a', n: 1, flag: 1, note: null, extra: 'e' }]);
  });

  it('leave statements that return nothing as writers', () => {
    const insert = db.prepare('insert into t (id, n, flag) values (?, ?, ?)');
    assert.equal(insert.reader, false);
    assert.equal(insert.run(['c', 3, false]).changes, 1);
    const returning = db.prepare('delete from t where id = ? returning id, n');
    assert.equal(returning.reader, true);
    assert.deepEqual(returning.all(['c']), [{ id: 'c', n: 3 }]);
  });
});

describe('opening SQLite', () => {
  it('waits for a lock another process holds instead of failing with "database is locked"', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hangar-sqlite-lock-'));
    const file = path.join(dir, 'locked.db');
    try {
      // Another process holds the file exclusively for a moment, as a `hangar` command does while
      // it checkpoints on closing; the journal mode cannot be read, let alone set, until it lets go.
      const holder = spawn(
        process.execPath,
        [
          '-e',
          `const { DatabaseSync } = require('node:sqlite');
           const db = new DatabaseSync(process.argv[1]);
           db.exec('create table t (x); begin exclusive; insert into t values (1)');
           console.log('locked');
           Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
           db.exec('commit'); db.close();`,
          file,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const [first] = (await once(holder.stdout!, 'data')) as [Buffer];
      assert.equal(first.toString().trim(), 'locked');
      const db = openSqlite(file);
      try {
        assert.deepEqual(db.prepare('select x from t').all([]), [{ x: 1 }]);
      } finally {
        db.close();
      }
      await once(holder, 'exit');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
