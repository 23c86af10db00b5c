// The shape of src/: imports run down the layers below, never up, and never in a circle. Every
// import counts (static, type-only, re-exports and dynamic import()), because a type-only import
// that goes up is still a dependency a reader has to follow.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../src');

/** Folders of shared plumbing; every other folder of src/ is a domain. */
const FOUNDATION_DIRS = ['db', 'jsonapi', 'crypto', 'blobs'];
/** Folders that are neither foundation nor a domain. */
const OTHER_DIRS = ['auth', 'ops'];
const domainFile = (name: string) => (file: string) => {
  const [dir, base, ...rest] = file.split('/');
  return rest.length === 0 && base === name && ![...FOUNDATION_DIRS, ...OTHER_DIRS].includes(dir!);
};

/** Files of a domain folder beside the usual rooms: code its service calls that knows nothing of requests or tables. */
const PURE_HELPERS = [
  'policy-set-versions/archive.ts',
  'policy-set-versions/sentinel-hcl.ts',
  'policy-set-versions/manifest.ts',
  'state-versions/resource-instances.ts',
  'notification-configurations/delivery.ts',
];

/**
 * Top to bottom. A file may import from its own layer and the layers below it. Each src/ file
 * belongs to the first layer that claims it; a file no layer claims fails the test.
 */
export const LAYERS: ReadonlyArray<{ name: string; holds: (file: string) => boolean }> = [
  { name: 'entry (main.ts)', holds: (f) => f === 'main.ts' },
  { name: 'wiring (app.ts, services.ts)', holds: (f) => f === 'app.ts' || f === 'services.ts' },
  // The web UI: pages call the services (below), as routes do; the test below keeps stores out.
  { name: 'web (pages)', holds: (f) => f.startsWith('web/') },
  // Executes jobs over the services (the server's own workers); only the wiring starts it.
  // The agent protocol's routes answer with the runner's own port (runner/local.ts): one protocol.
  { name: 'runner', holds: (f) => f.startsWith('runner/') || f.startsWith('agent-protocol/') },
  { name: 'routes', holds: domainFile('routes.ts') },
  {
    name: 'HTTP plumbing (api.ts, ops/, schemas, serializers)',
    holds: (f) => f === 'api.ts' || f.startsWith('ops/') || domainFile('schemas.ts')(f) || domainFile('serialize.ts')(f),
  },
  { name: 'services', holds: domainFile('service.ts') },
  { name: 'lookups ("find this for this caller")', holds: (f) => domainFile('lookup.ts')(f) || domainFile('access.ts')(f) },
  { name: 'auth', holds: (f) => f.startsWith('auth/') },
  // A domain's lifecycle table (runs/statuses.ts): data beside its store, read from above.
  { name: 'stores', holds: (f) => domainFile('store.ts')(f) || domainFile('statuses.ts')(f) },
  // A library of its own (see the test below): under everything, importing nothing of Hangar.
  { name: 'sentinel (the policy language runtime)', holds: (f) => f.startsWith('sentinel/') },
  {
    name: "a domain's pure helpers (no HTTP, no SQL, nothing of Hangar's above the foundation)",
    holds: (f) => PURE_HELPERS.includes(f),
  },
  {
    name: 'foundation (db, jsonapi, crypto, blobs, ids, time, config, values, grants, files)',
    holds: (f) =>
      FOUNDATION_DIRS.some((d) => f.startsWith(`${d}/`)) || ['ids.ts', 'time.ts', 'config.ts', 'values.ts', 'grants.ts', 'files.ts', 'archive.ts'].includes(f),
  },
];

function sourceFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) return sourceFiles(path.join(dir, e.name), rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

/** The text with comments blanked out and string contents kept, so that import specifiers survive. */
function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

// Statements start a line: a message such as `import "module" "x" needs a source` is not one.
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Every src/ file this file imports, as paths relative to src/. */
function importsOf(file: string): string[] {
  const code = withoutComments(readFileSync(path.join(SRC, file), 'utf8'));
  const found: string[] = [];
  for (const m of code.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!;
    if (!spec.startsWith('.')) continue;
    found.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
  return found;
}

const layerOf = (file: string) => LAYERS.findIndex((l) => l.holds(file));

/** Every circle in the graph, each as the path that closes it (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indices.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return found;
}

describe('architecture of src/', () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it('reads the imports it checks', () => {
    // A scanner that silently found nothing would pass every test below.
    assert.ok(graph.get('app.ts')!.length > 5, 'no imports found in app.ts');
    assert.ok(files.length > 40);
  });

  it('places every file in exactly one layer', () => {
    assert.deepEqual(
      files.filter((f) => layerOf(f) < 0),
      [],
      'files no layer claims: add them to LAYERS',
    );
  });

  it('imports only files that exist', () => {
    const missing = [...graph].flatMap(([f, to]) => to.filter((t) => !graph.has(t)).map((t) => `${f} → ${t}`));
    assert.deepEqual(missing, []);
  });

  it('has no import circle', () => {
    assert.deepEqual(circles(graph), [], 'files that import each other, directly or through others');
  });

  it('imports only from the same layer or below', () => {
    const upward = [...graph].flatMap(([f, to]) =>
      to.filter((t) => graph.has(t) && layerOf(t) < layerOf(f)).map((t) => `${f} (${LAYERS[layerOf(f)]!.name}) → ${t} (${LAYERS[layerOf(t)]!.name})`),
    );
    assert.deepEqual(upward, []);
  });

  it('gives every route of a domain a response schema (which also serializes its answers)', () => {
    // Fastify serializes through the route's `response` schemas and the OpenAPI document is made
    // of them, so a route without one is undocumented. test/openapi.test.ts checks the running
    // app's route table and every member each answer sends; this says where the rule lives.
    const isRoutes = domainFile('routes.ts');
    const missing = files.filter(isRoutes).flatMap((f) => {
      const code = withoutComments(readFileSync(path.join(SRC, f), 'utf8'));
      const routes = code.match(/\bapp\.(?:get|post|put|patch|delete)\(/g)?.length ?? 0;
      const schemas = code.match(/\bresponse: responses\(/g)?.length ?? 0;
      return routes === schemas ? [] : [`${f}: ${routes} routes, ${schemas} response schemas (use responses() from jsonapi/schemas.ts)`];
    });
    assert.ok(files.filter(isRoutes).length > 8, 'found the route files');
    assert.deepEqual(missing, []);
  });

  it('keeps the Sentinel runtime a library of its own: it imports nothing else of Hangar, and only its CLI and test runner touch files', () => {
    const sentinel = files.filter((f) => f.startsWith('sentinel/'));
    assert.ok(sentinel.length > 5, 'found the sentinel files');
    const outside = sentinel.flatMap((f) =>
      graph
        .get(f)!
        .filter((t) => !t.startsWith('sentinel/'))
        .map((t) => `${f} → ${t}`),
    );
    assert.deepEqual(outside, [], 'src/sentinel/ must not import the rest of Hangar (HTTP, database, configuration)');
    // Policy code runs in the evaluator: no module of it may reach files, the network or processes.
    const IO_ALLOWED = ['sentinel/cli.ts', 'sentinel/testing.ts'];
    const io = sentinel.flatMap((f) => {
      const code = withoutComments(readFileSync(path.join(SRC, f), 'utf8'));
      const specs = [...code.matchAll(IMPORT)].map((m) => m[1] ?? m[2]!).filter((spec) => !spec.startsWith('.'));
      // The sandbox starts the process policies run in (which may itself import nothing); a plan's
      // mocks are printed on a worker thread (no policy code runs there).
      const MOCKS = ['sentinel/mocks.ts', 'sentinel/mocks-worker.ts'];
      const allowed = IO_ALLOWED.includes(f)
        ? ['node:fs', 'node:path', 'node:util', 'node:v8']
        : f === 'sentinel/sandbox.ts'
          ? ['node:child_process']
          : MOCKS.includes(f)
            ? ['node:worker_threads']
            : [];
      return specs.filter((spec) => !allowed.includes(spec)).map((spec) => `${f} → ${spec}`);
    });
    assert.deepEqual(io, []);
  });

  it('keeps the web UI on the services: no page reaches a store, SQL or the database', () => {
    const web = [...graph].filter(([f]) => f.startsWith('web/'));
    assert.ok(web.length > 5, 'found the web files');
    const reaching = web.flatMap(([f, to]) => to.filter((t) => domainFile('store.ts')(t) || t.startsWith('db/')).map((t) => `${f} → ${t}`));
    assert.deepEqual(reaching, []);
  });

  it("keeps each store to its own domain's tables: no store imports another domain's store", () => {
    const isStore = domainFile('store.ts');
    const crossing = [...graph].flatMap(([f, to]) => (isStore(f) ? to.filter((t) => isStore(t) && t !== f).map((t) => `${f} → ${t}`) : []));
    assert.deepEqual(crossing, []);
  });
});
