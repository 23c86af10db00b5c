// Silent misconfiguration made loud: a HANGAR_* variable that is no setting is named with the
// closest setting, and plain HTTP where others can connect is warned about once at start.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { editDistance, loadConfig, plainHttpWarning, unknownSettingWarnings } from '../src/config.ts';
import { hangarAsync } from './helpers/process.ts';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

describe('unknown HANGAR_* variables', () => {
  it('are each named with the closest setting', () => {
    const warnings = unknownSettingWarnings({ HANGAR_TLS_CERT: '/etc/cert.pem', HANGAR_PORT: '8080', HANGAR_DATABSE_URL: 'sqlite:x', PATH: '/bin' });
    assert.deepEqual(warnings, [
      'HANGAR_DATABSE_URL is not a Hangar setting and is ignored; did you mean HANGAR_DATABASE_URL?',
      'HANGAR_TLS_CERT is not a Hangar setting and is ignored; did you mean HANGAR_TLS_CERT_FILE?',
    ]);
  });

  it("every setting, and the test and bench scripts' own variables, pass without a word", () => {
    const env = {
      HANGAR_HOST: '127.0.0.1',
      HANGAR_PORT: '1',
      HANGAR_DATA_DIR: '/tmp',
      HANGAR_DATABASE_URL: 'sqlite:/tmp/x.db',
      HANGAR_BASE_URL: 'https://h.example',
      HANGAR_LOG_LEVEL: 'info',
      HANGAR_ENCRYPTION_KEY: 'k',
      HANGAR_RATE_LIMIT: '30',
      HANGAR_REDIS_URL: 'redis://r',
      HANGAR_REDIS_KEY_PREFIX: 'p',
      HANGAR_TRUST_PROXY: '10.0.0.1',
      HANGAR_METRICS_PORT: '9090',
      HANGAR_METRICS_HOST: '127.0.0.1',
      HANGAR_METRICS_TOKEN: 'x'.repeat(16),
      HANGAR_SHUTDOWN_TIMEOUT: '10',
      HANGAR_TLS_CERT_FILE: 'c',
      HANGAR_TLS_KEY_FILE: 'k',
      HANGAR_TEST_POSTGRES_URL: 'postgres://x',
      HANGAR_BENCH_POSTGRES_URL: 'postgres://x',
      HANGAR_CONFORMANCE_DIR: '/tmp',
    };
    assert.deepEqual(unknownSettingWarnings(env), []);
  });

  it('edit distance', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });

  it('`hangar` prints the warning on stderr and carries on', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-warn-'));
    try {
      const r = await hangarAsync(['migrate'], { HANGAR_DATA_DIR: dataDir, HANGAR_TLS_CERT: '/etc/cert.pem' });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /^warning: HANGAR_TLS_CERT is not a Hangar setting and is ignored; did you mean HANGAR_TLS_CERT_FILE\?$/m);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('plain HTTP on a non-loopback address', () => {
  const config = (env: Record<string, string>) => loadConfig({ HANGAR_DATA_DIR: tmpdir(), ...env });

  it('is warned about; loopback, TLS and a trusted proxy are not', () => {
    assert.match(
      plainHttpWarning(config({ HANGAR_HOST: '0.0.0.0' }))!,
      /^serving plain HTTP on 0\.0\.0\.0, which is not a loopback address: .*HANGAR_TLS_CERT_FILE/,
    );
    assert.ok(plainHttpWarning(config({ HANGAR_HOST: '192.0.2.10' })));
    assert.ok(plainHttpWarning(config({ HANGAR_HOST: '::' })));
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) assert.equal(plainHttpWarning(config({ HANGAR_HOST: host })), null, host);
    assert.equal(plainHttpWarning({ host: '0.0.0.0', tls: { certFile: 'c', keyFile: 'k' }, trustProxy: null }), null);
    assert.equal(plainHttpWarning(config({ HANGAR_HOST: '0.0.0.0', HANGAR_TRUST_PROXY: '10.0.0.1' })), null);
  });

  const dataDir = mkdtempSync(path.join(tmpdir(), 'hangar-plain-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('`hangar serve` on 0.0.0.0 says so once at start, on stderr and in the log', { timeout: 90_000 }, async () => {
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: { ...process.env, HANGAR_DATA_DIR: dataDir, HANGAR_HOST: '0.0.0.0', HANGAR_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
          if (stderr.includes('\nwarning: serving plain HTTP') || stderr.startsWith('warning: serving plain HTTP')) resolve();
        });
        child.on('exit', () => reject(new Error(`exited:\n${stderr}`)));
      });
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(stderr.match(/warning: serving plain HTTP/g)!.length, 1, stderr);
      assert.match(stdout, /"level":40,.*serving plain HTTP on 0\.0\.0\.0/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
