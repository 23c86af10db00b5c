// One server per SQLite file: a second `hangar serve` on it exits with one line, the CLI still
// works beside the running server, and a server that was killed leaves no lock behind.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { hangarAsync, startServer, type Server } from './helpers/process.ts';

describe('a second server on the same SQLite file', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-serve-lock-'));
  const servers: Server[] = [];
  after(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses to start with one line; CLI commands work beside the first; a killed server leaves no lock', { timeout: 180_000 }, async () => {
    const first = await startServer({ HANGAR_DATA_DIR: dataDir });
    servers.push(first);
    const file = path.join(dataDir, 'hangar.db');

    const second = await hangarAsync(['serve'], { HANGAR_DATA_DIR: dataDir, HANGAR_PORT: '0' });
    assert.equal(second.status, 1, second.stderr);
    assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
    assert.match(second.stderr, new RegExp(`^error: another Hangar server is already serving ${file} `));
    // The same file named through HANGAR_DATABASE_URL from another data directory: the same lock.
    const other = mkdtempSync(path.join(tmpdir(), 'hangar-serve-lock-other-'));
    try {
      const third = await hangarAsync(['serve'], { HANGAR_DATA_DIR: other, HANGAR_DATABASE_URL: `sqlite:${file}`, HANGAR_PORT: '0' });
      assert.equal(third.status, 1, third.stderr);
      assert.match(third.stderr, /another Hangar server is already serving/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }

    const boot = await hangarAsync(['bootstrap'], { HANGAR_DATA_DIR: dataDir });
    assert.equal(boot.status, 0, boot.stderr);
    const res = await fetch(`${first.url}/api/v2/account/details`, { headers: { authorization: `Bearer ${boot.stdout.trim()}` } });
    assert.equal(res.status, 200, 'the running server accepts the token the CLI made beside it');

    await first.stop('SIGKILL');
    const next = await startServer({ HANGAR_DATA_DIR: dataDir });
    servers.push(next);
    assert.equal((await fetch(`${next.url}/api/v2/ping`)).status, 204);
  });
});
