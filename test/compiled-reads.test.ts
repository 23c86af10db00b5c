// Compiled reads (db/compiled.ts) run on the driver itself, outside Kysely's executor. They must
// still be logged like every other statement, and must never run inside another request's open
// transaction: on SQLite there is one connection, and a read slipped into someone else's
// transaction would see writes that may yet be rolled back.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { suite } from './helpers/harness.ts';
import { assertStatus } from './helpers/assert.ts';
import { createProject } from './helpers/projects.ts';
import { findProjectWithCounts, listProjects } from '../src/projects/store.ts';
import { compiledByKey } from '../src/db/compiled.ts';

suite('compiled reads', (ctx) => {
  it('answer in one statement, seen by the query log, with the counts beside the row', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org, { name: 'compiled-one' });
    const res = await ctx.post(`/api/v2/organizations/${org.name}/workspaces`, org.owner.token, {
      data: { type: 'workspaces', attributes: { name: 'compiled-ws' }, relationships: { project: { data: { type: 'projects', id: project.id } } } },
    });
    assertStatus(res, 201);
    const { result, statements } = await ctx.statementsOf(() => findProjectWithCounts(ctx.database.db, project.id));
    assert.equal(statements.length, 1, statements.join('\n'));
    assert.match(statements[0]!, /from "projects"/);
    assert.equal(result?.project.name, 'compiled-one');
    assert.equal(result?.workspaceCount, 1);
    assert.equal(result?.teamCount, 0);
    assert.equal(await findProjectWithCounts(ctx.database.db, 'prj-doesnotexist000'), undefined);
  });

  it('wait for a transaction in progress and never see what it rolls back', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org, { name: 'before-rollback' });
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const rolledBack = ctx.database
      .transaction(async (trx) => {
        await sql`UPDATE projects SET name = 'uncommitted' WHERE id = ${project.id}`.execute(trx);
        wrote();
        await released;
        throw new Error('roll back');
      })
      .then(
        () => assert.fail('the transaction should have rolled back'),
        (e: Error) => assert.equal(e.message, 'roll back'),
      );
    await written;
    // Started while the transaction holds its write, answered after it is gone.
    const read = findProjectWithCounts(ctx.database.db, project.id);
    const within = (ms: number) => Promise.race([read.then((r) => r?.project.name), new Promise((resolve) => setTimeout(() => resolve('still waiting'), ms))]);
    try {
      // SQLite: not answered while the transaction is open, however long it stays open (50 ms
      // here). PostgreSQL: answered while it is open; a loaded machine may take a while, so
      // the wait is long, and only a read that never comes fails it.
      if (ctx.dialect === 'sqlite') assert.equal(await within(50), 'still waiting', 'a read on the one SQLite connection waits for the open transaction');
      else assert.equal(await within(10_000), 'before-rollback', 'PostgreSQL reads on another connection, under its own snapshot');
    } finally {
      // Whatever the assertion said: a transaction left open would hang the suite.
      release();
    }
    await rolledBack;
    assert.equal((await read)?.project.name, 'before-rollback');
    const shown = await ctx.get(`/api/v2/projects/${project.id}`, org.owner.token);
    assertStatus(shown, 200);
    assert.equal(shown.body.data.attributes.name, 'before-rollback');
  });

  it('compiled by key: built once per key, again for another key, every time without one or in a transaction', async () => {
    const org = await ctx.organization();
    const project = await createProject(ctx, org, { name: 'keyed' });
    const read = compiledByKey<{ name: string }>();
    let builds = 0;
    const build = (id: string) => () => (builds++, ctx.database.db.selectFrom('projects').select('name').where('id', '=', id));
    const db = ctx.database.db;
    assert.deepEqual(await read(db, `one ${project.id}`, build(project.id)), [{ name: 'keyed' }]);
    assert.deepEqual(await read(db, `one ${project.id}`, build(project.id)), [{ name: 'keyed' }]);
    assert.equal(builds, 1, 'the same key is compiled once');
    // A write between two reads is seen: what is kept is the statement, never its answer.
    await sql`UPDATE projects SET name = 'renamed' WHERE id = ${project.id}`.execute(db);
    assert.deepEqual(await read(db, `one ${project.id}`, build(project.id)), [{ name: 'renamed' }]);
    assert.deepEqual(await read(db, 'another', build('prj-doesnotexist000')), []);
    assert.equal(builds, 2);
    await read(db, null, build(project.id));
    await read(db, null, build(project.id));
    assert.equal(builds, 4, 'no key, no keeping');
    await ctx.database.transaction((trx) => read(trx, `one ${project.id}`, build(project.id)));
    assert.equal(builds, 5, 'a transaction builds on its own handle');
  });

  it('a project list page is one statement, counts beside the rows; past the end, one more for the counts', async () => {
    const org = await ctx.organization();
    await createProject(ctx, org, { name: 'listed-a' });
    await createProject(ctx, org, { name: 'listed-b' });
    const organizationId = (await ctx.database.db.selectFrom('organizations').select('id').where('name', '=', org.name).executeTakeFirstOrThrow()).id;
    const filter = { organizationId, visible: null, required: [], sort: null };
    for (let round = 0; round < 2; round++) {
      const { result, statements } = await ctx.statementsOf(() => listProjects(ctx.database.db, filter, { offset: 0, size: 2 }));
      assert.equal(statements.length, 1, statements.join('\n'));
      // The default project, and the two made here.
      assert.deepEqual([result.total, result.matching], [3, 3]);
      assert.deepEqual(
        result.items.map((p) => p.project.name),
        ['listed-b', 'listed-a'],
      );
    }
    const past = await ctx.statementsOf(() => listProjects(ctx.database.db, filter, { offset: 10, size: 2 }));
    assert.equal(past.statements.length, 2, past.statements.join('\n'));
    assert.deepEqual([past.result.items.length, past.result.total, past.result.matching], [0, 3, 3]);
  });
});
