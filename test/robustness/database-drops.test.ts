// PostgreSQL drops Hangar's connections (restart, failover, an administrator) while writers are
// busy: the process stays up, every answer is 2xx or 503 with Retry-After, and every write that
// was acknowledged is there afterwards.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { POSTGRES_URL } from '../helpers/harness.ts';
import { hangar, scratchServer } from '../helpers/process.ts';

const WRITERS = 8;
const TERMINATIONS = 6;

describe('pg_terminate_backend under a write load', { skip: !POSTGRES_URL && 'needs HANGAR_TEST_POSTGRES_URL' }, () => {
  // A name of this run's own, so only this server's sessions are terminated (the default is
  // "hangar", which other test runs on the same PostgreSQL server share).
  const applicationName = `hangar-drops-${randomBytes(4).toString('hex')}`;
  const start = scratchServer('postgres', POSTGRES_URL, { application_name: applicationName });

  it('stays up, answers 2xx or 503 with Retry-After, and keeps every acknowledged write', { timeout: 120_000 }, async () => {
    const { server, env } = await start({ HANGAR_LOG_LEVEL: 'warn' });
    const url = server.url;
    const token = hangar(['bootstrap'], env).stdout.trim();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json' };
    const org = await fetch(`${url}/api/v2/organizations`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ data: { type: 'organizations', attributes: { name: 'drops', email: 'd@example.test' } } }),
    });
    assert.equal(org.status, 201);

    // Writers create teams (one row), projects and organizations (several rows, one transaction).
    const acknowledged: string[] = [];
    const problems: string[] = [];
    const statuses = new Map<number, number>();
    let stop = false;
    let seq = 0;
    const writes = [
      (n: number) => ({
        path: '/api/v2/organizations/drops/teams',
        type: 'teams',
        attributes: { name: `t-${n}` },
        check: (id: string) => `/api/v2/teams/${id}`,
      }),
      (n: number) => ({
        path: '/api/v2/organizations/drops/projects',
        type: 'projects',
        attributes: { name: `p-${n}` },
        check: (id: string) => `/api/v2/projects/${id}`,
      }),
      (n: number) => ({
        path: '/api/v2/organizations',
        type: 'organizations',
        attributes: { name: `o-${n}`, email: 'o@example.test' },
        check: (id: string) => `/api/v2/organizations/${id}`,
      }),
    ];
    const writer = async (w: number) => {
      while (!stop) {
        const n = ++seq;
        const write = writes[(n + w) % writes.length]!(n);
        try {
          const res = await fetch(`${url}${write.path}`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ data: { type: write.type, attributes: write.attributes } }),
          });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const text = await res.text();
          if (res.status >= 200 && res.status < 300) {
            acknowledged.push(write.check(JSON.parse(text).data.id));
          } else if (res.status === 503) {
            if (res.headers.get('retry-after') !== '1') problems.push(`503 without Retry-After: ${text}`);
            if (JSON.parse(text).errors?.[0]?.status !== '503') problems.push(`503 without a JSON:API error: ${text}`);
          } else {
            problems.push(`${res.status} ${text}`);
          }
        } catch (e) {
          problems.push(`no answer: ${String(e)}`);
          if (server.child.exitCode !== null) return;
        }
      }
    };

    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    let terminated = 0;
    const running = Array.from({ length: WRITERS }, (_, w) => writer(w));
    try {
      for (let i = 0; i < TERMINATIONS; i++) {
        await new Promise((r) => setTimeout(r, 250));
        // Two steps: in one statement PostgreSQL may call pg_terminate_backend before filtering.
        const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [applicationName]);
        for (const { pid } of rows) {
          const ended = await admin.query<{ ok: boolean }>('select pg_terminate_backend($1) as ok', [pid]);
          if (ended.rows[0]!.ok) terminated += 1;
        }
      }
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      stop = true;
      await Promise.all(running);
      await admin.end();
    }

    const summary = `terminated ${terminated} sessions; statuses ${JSON.stringify([...statuses])}`;
    assert.equal(server.child.exitCode, null, `the server exited: ${summary}\n${server.output()}`);
    assert.deepEqual(problems.slice(0, 5), [], summary);
    assert.ok(terminated >= TERMINATIONS, `the terminations hit Hangar's sessions: ${summary}`);
    assert.ok(acknowledged.length > 10, `only ${acknowledged.length} writes were acknowledged: ${summary}`);
    // Every acknowledged write is there; the server serves reads on fresh connections.
    for (const check of acknowledged) {
      const res = await fetch(`${url}${check}`, { headers });
      assert.equal(res.status, 200, `acknowledged ${check} is missing (${summary})`);
    }
  });
});
