// The `sentinel test` layout: for each `<dir>/<policy>.sentinel` with cases in
// `<dir>/test/<policy>/*.hcl` (or `*.json`, the older format), evaluate the policy with the
// case's mocks, modules, params and globals (modules and params of `<dir>/sentinel.hcl` apply
// too, the case's win) and compare the rules named in `test { rules = {...} }` (default:
// main = true) with their values.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Program } from './ast.ts';
import { SentinelError, formatPos } from './errors.ts';
import { parseHcl, setOwn, type HclBlock, type HclBody, type HclValue } from './hcl.ts';
import { evaluateRaw, mainPasses, type ImportSpec } from './index.ts';
import type { Limits } from './interpreter.ts';
import { equals, fromJS, toDisplay } from './values.ts';

export interface TestCaseResult {
  /** The case file. */
  file: string;
  policy: string;
  passed: boolean;
  /** Why it failed. */
  reason?: string;
  /** It failed because the policy used the http import, which Hangar does not give policies. */
  needsNetwork: boolean;
  /** Its folder names no policy beside `test/`: HashiCorp's `sentinel test` never runs such a case. */
  orphan: boolean;
  prints: string[];
  durationMs: number;
}

/** Every test case file under `dir`, sorted, with the policy each one tests. */
export function findTestCases(dir: string): Array<{ file: string; policy: string }> {
  const found: Array<{ file: string; policy: string }> = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const full = path.join(d, entry.name);
      if (entry.name === 'test') {
        for (const policyDir of readdirSync(full, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
          if (!policyDir.isDirectory()) continue;
          const policy = path.join(d, `${policyDir.name}.sentinel`);
          const caseDir = path.join(full, policyDir.name);
          for (const f of readdirSync(caseDir).sort()) {
            if ((f.endsWith('.hcl') || f.endsWith('.json')) && statSync(path.join(caseDir, f)).isFile()) found.push({ file: path.join(caseDir, f), policy });
          }
        }
      } else {
        walk(full);
      }
    }
  };
  walk(dir);
  return found;
}

const blocks = (body: HclBody, type: string) => body.blocks.filter((b) => b.type === type);
const label = (b: HclBlock) => {
  if (b.labels.length !== 1) throw new SentinelError(`${b.type} block needs exactly one label`, b.pos);
  return b.labels[0]!;
};
const attr = (body: HclBody, name: string) => body.attributes.get(name)?.value;

function readSource(file: string, pos: SentinelError['pos'] | null): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    const message = `cannot read ${file}`;
    if (pos) throw new SentinelError(message, pos);
    throw new Error(message);
  }
}

/** The file is read when the policy imports it: a case may name mocks its policy never uses. */
function moduleSpec(b: HclBlock, base: string, what: string): ImportSpec {
  const source = attr(b.body, 'source');
  if (typeof source !== 'string') throw new SentinelError(`${what} needs a source`, b.pos);
  const file = path.resolve(base, source);
  let text: string | undefined;
  return {
    get source() {
      text ??= readSource(file, b.pos);
      return text;
    },
    filename: path.relative(process.cwd(), file) || file,
  };
}

interface Declared {
  modules: Record<string, ImportSpec>;
  mocks: Record<string, ImportSpec>;
  params: Record<string, unknown>;
  globals: Record<string, unknown>;
}

/**
 * A test case in the JSON format of older Sentinel releases (`{"mock": {"tfplan": "mock.sentinel"},
 * "param": {...}, "global": {...}, "test": {"main": true}}`; a mock is a module's path or its
 * data), read as the blocks its HCL form would have.
 */
function jsonCase(text: string, file: string): HclBody {
  const pos = { file: path.relative(process.cwd(), file) || file, line: 1, column: 1 };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SentinelError(`not valid JSON: ${(e as Error).message}`, pos);
  }
  const isObject = (v: unknown): v is Record<string, HclValue> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(doc)) throw new SentinelError('a JSON test case must be an object', pos);
  const section = (name: string): Record<string, HclValue> => {
    const v = doc[name] ?? {};
    if (!isObject(v)) throw new SentinelError(`${name} must be an object`, pos);
    return v;
  };
  const attributes = (entries: Record<string, HclValue>) => new Map(Object.entries(entries).map(([k, value]) => [k, { value, pos }]));
  const block = (type: string, labels: string[], attrs: Record<string, HclValue>, blocks: HclBlock[] = []): HclBlock => ({
    type,
    labels,
    body: { attributes: attributes(attrs), blocks },
    pos,
  });
  const out: HclBlock[] = [];
  for (const [name, mock] of Object.entries(section('mock'))) {
    out.push(typeof mock === 'string' ? block('mock', [name], {}, [block('module', [], { source: mock })]) : block('mock', [name], { data: mock }));
  }
  for (const kind of ['param', 'global']) for (const [name, value] of Object.entries(section(kind))) out.push(block(kind, [name], { value }));
  if (doc.test !== undefined) out.push(block('test', [], { rules: section('test') }));
  return { attributes: new Map(), blocks: out };
}

/** A static import's data: a JSON file, read (and parsed) when the policy imports it. */
function staticSpec(b: HclBlock, name: string, base: string): ImportSpec {
  const source = attr(b.body, 'source');
  const format = attr(b.body, 'format') ?? 'json';
  if (typeof source !== 'string') throw new SentinelError(`import "static" "${name}" needs a source`, b.pos);
  if (format !== 'json') throw new SentinelError(`import "static" "${name}": format ${JSON.stringify(format)} is not supported (only "json")`, b.pos);
  const file = path.resolve(base, source);
  let data: unknown;
  return {
    get data() {
      if (data === undefined) {
        try {
          data = JSON.parse(readSource(file, b.pos));
        } catch (e) {
          if (e instanceof SentinelError) throw e;
          throw new SentinelError(`import "static" "${name}": ${file} is not JSON`, b.pos);
        }
        // As a policy set version requires (policy-set-versions/manifest.ts).
        if (typeof data !== 'object' || data === null || Array.isArray(data))
          throw new SentinelError(`import "static" "${name}": ${file} must hold a JSON object`, b.pos);
      }
      return data;
    },
  };
}

/** The modules, mocks, params and globals a configuration file or a case file declares. */
function collect(body: HclBody, base: string, into: Declared) {
  for (const b of blocks(body, 'module')) setOwn(into.modules, label(b), moduleSpec(b, base, `module "${label(b)}"`));
  // Sentinel's current spelling: `import "module" "name" { source = … }` and
  // `import "static" "name" { source = "data.json", format = "json" }`. Plugins are programs,
  // which Hangar never runs: a policy importing one fails as an unknown import.
  for (const b of blocks(body, 'import')) {
    const [kind, name] = b.labels;
    if (b.labels.length !== 2) throw new SentinelError('import block needs two labels: its kind and its name', b.pos);
    if (kind === 'module') setOwn(into.modules, name!, moduleSpec(b, base, `import "module" "${name}"`));
    else if (kind === 'static') setOwn(into.modules, name!, staticSpec(b, name!, base));
  }
  for (const b of blocks(body, 'mock')) {
    const name = label(b);
    const moduleBlocks = blocks(b.body, 'module');
    const data = b.body.attributes.get('data');
    if (moduleBlocks.length === 1) setOwn(into.mocks, name, moduleSpec(moduleBlocks[0]!, base, `mock "${name}" module`));
    else if (data) setOwn(into.mocks, name, { data: data.value });
    else throw new SentinelError(`mock "${name}" needs a module block or a data attribute`, b.pos);
  }
  for (const b of blocks(body, 'param')) setOwn(into.params, label(b), attr(b.body, 'value'));
  for (const b of blocks(body, 'global')) setOwn(into.globals, label(b), attr(b.body, 'value'));
}

/**
 * What the `sentinel.hcl` beside a policy declares (modules, params and, for `sentinel apply`,
 * mocks); nothing when there is none.
 */
export function policySetDeclarations(policy: string, options: { mocks: boolean }): Declared {
  const config: Declared = { modules: {}, mocks: {}, params: {}, globals: {} };
  const setFile = path.join(path.dirname(policy), 'sentinel.hcl');
  if (!existsSync(setFile)) return config;
  const set = parseHcl(readSource(setFile, null), setFile);
  collect(options.mocks ? set : { attributes: set.attributes, blocks: set.blocks.filter((b) => b.type !== 'mock') }, path.dirname(setFile), config);
  return config;
}

export interface RunOptions {
  limits?: Partial<Limits>;
  now?: Date;
}

export function runTestCase(file: string, policy: string, options: RunOptions = {}, parseCache?: Map<string, Program>): TestCaseResult {
  const started = performance.now();
  const result = (passed: boolean, reason?: string, prints: string[] = [], needsNetwork = false): TestCaseResult => ({
    file,
    policy,
    passed,
    needsNetwork,
    orphan: false,
    ...(reason === undefined ? {} : { reason }),
    prints,
    durationMs: performance.now() - started,
  });
  try {
    if (!existsSync(policy)) return { ...result(false, `no policy ${path.relative(process.cwd(), policy) || policy} for this test case`), orphan: true };
    // The set's mocks are for `sentinel apply`; a test case brings its own.
    const config = policySetDeclarations(policy, { mocks: false });
    const testCase = file.endsWith('.json') ? jsonCase(readSource(file, null), file) : parseHcl(readSource(file, null), file);
    collect(testCase, path.dirname(file), config);
    const testBlock = blocks(testCase, 'test')[0];
    const expected = (testBlock && attr(testBlock.body, 'rules')) ?? { main: true };
    if (typeof expected !== 'object' || expected === null || Array.isArray(expected)) {
      return result(false, 'test.rules must be a map of rule names to expected values');
    }
    const ruleNames = Object.keys(expected as Record<string, HclValue>);
    const raw = evaluateRaw({
      source: readSource(policy, null),
      filename: path.relative(process.cwd(), policy) || policy,
      params: config.params,
      // A module declared for a name wins over a mock of the same name.
      imports: { ...config.mocks, ...config.modules },
      globals: config.globals,
      evaluateRules: ruleNames,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(parseCache ? { parseCache } : {}),
    });
    if (raw.error) return result(false, `${formatPos(raw.error)}: ${raw.error.message}`, raw.prints, raw.error.kind === 'network');
    const wrong: string[] = [];
    for (const name of ruleNames) {
      const want = fromJS((expected as Record<string, HclValue>)[name]);
      if (!raw.rules.has(name)) {
        wrong.push(`rule ${name} was not evaluated (expected ${toDisplay(want, true)})`);
        continue;
      }
      let got = raw.rules.get(name);
      // A main that is not a bool (a list of violations, say) passes when empty: a case expecting
      // main to be true or false is about that outcome.
      if (name === 'main' && typeof want === 'boolean' && typeof got !== 'boolean' && got !== undefined) got = mainPasses(got) ?? got;
      if (!equals(got, want)) wrong.push(`expected ${name} to be ${toDisplay(want, true)}, got ${toDisplay(got, true)}`);
    }
    return wrong.length ? result(false, wrong.join('; '), raw.prints) : result(true, undefined, raw.prints);
  } catch (err) {
    if (err instanceof SentinelError) return result(false, err.message);
    if (err instanceof Error) return result(false, err.message);
    throw err;
  }
}

/** Runs every test case under `dir` (see findTestCases), in order. */
export function runTestCases(dir: string, options: RunOptions = {}): TestCaseResult[] {
  const cache = new Map<string, Program>();
  return findTestCases(dir).map(({ file, policy }) => runTestCase(file, policy, options, cache));
}
