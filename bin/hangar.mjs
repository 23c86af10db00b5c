#!/usr/bin/env node
// `npx hangar …`: runs the TypeScript entry point on Node 24 or later, which strips the types.
// On an older Node (the machine's own) it runs itself again on the Node that the `node` package
// installed into node_modules. This file is plain JavaScript that any Node since 14 can parse, so
// an old Node gets this far and no further.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NEEDED = 24;
const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));

if (Number(process.versions.node.split('.')[0]) >= NEEDED) {
  await import(main);
} else {
  const bundled = bundledNode();
  if (!bundled) {
    process.stderr.write(
      `error: Hangar needs Node ${NEEDED} or later, and this is Node ${process.versions.node}; ` +
        'run `npm ci --omit=dev` in the Hangar directory (its `node` dependency installs Node 24)\n',
    );
    process.exit(1);
  }
  const child = spawn(bundled, [main, ...process.argv.slice(2)], { stdio: 'inherit' });
  // The child gets a terminal's Ctrl-C itself; a signal sent to this process alone is passed on.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    // A shell reports death by a signal as 128 + its number.
    process.exit(signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1));
  });
}

/** The Node binary of the `node` package, wherever npm put it; null if it is not installed. */
function bundledNode() {
  try {
    const require = createRequire(import.meta.url);
    const file = path.join(path.dirname(require.resolve('node/package.json')), 'bin', 'node');
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
}
