// src/ops/tick-maps.ts keeps one nextTick object alive so that V8's feedback for Node's tick
// object literal stays monomorphic after full garbage collections (the module says why that
// matters). Both halves are checked on the Node this project runs on, in a child process that
// may print V8's own view of `process.nextTick` (--allow-natives-syntax) and force collections
// (--expose-gc): without the module a collection with no tick queued makes the feedback
// megamorphic; with it, it does not. If the first half ever fails after a Node upgrade, Node or
// V8 no longer behaves this way and the module can be removed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const MODULE = pathToFileURL(path.join(ROOT, 'src/ops/tick-maps.ts')).href;

// Ticks until nextTick is optimized, full collections while nothing is queued, ticks again, and
// then V8's description of nextTick, feedback slots included.
const SCRIPT = `
if (process.env.PIN === '1') await import(${JSON.stringify(MODULE)});
const ticks = (n) => new Promise((resolve) => { let i = 0; const next = () => (++i < n ? process.nextTick(next) : resolve()); next(); });
await ticks(20000);
for (let i = 0; i < 5; i++) { await new Promise((resolve) => setTimeout(resolve, 10)); globalThis.gc(); }
await ticks(20000);
%DebugPrint(process.nextTick);
`;

/** The states of nextTick's literal feedback slots (one per key of the tick object). */
function literalFeedback(pin: boolean): string[] {
  const r = spawnSync(process.execPath, ['--expose-gc', '--allow-natives-syntax', '--input-type=module', '-e', SCRIPT], {
    env: { ...process.env, PIN: pin ? '1' : '0' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return [...r.stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
}

describe("nextTick's object maps", () => {
  it('without the pin, full collections make the feedback megamorphic (what the module works around)', () => {
    const states = literalFeedback(false);
    assert.equal(states.length, 5, 'one feedback slot per key of the tick object');
    assert.ok(states.includes('MEGAMORPHIC'), `expected a megamorphic slot, got ${states.join(', ')}`);
  });

  it('with the pin, the feedback stays monomorphic through full collections', () => {
    assert.deepEqual(literalFeedback(true), Array(5).fill('MONOMORPHIC'));
  });

  it('the server loads the pin before any other module of its own', () => {
    const firstImport = /^import\s+(?:[^'"]*from\s+)?'([^']+)'/m.exec(readFileSync(path.join(ROOT, 'src/main.ts'), 'utf8'));
    assert.equal(firstImport?.[1], './ops/tick-maps.ts');
  });
});
