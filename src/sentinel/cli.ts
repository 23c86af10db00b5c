// `hangar sentinel test [DIR]` and `hangar sentinel apply POLICY`: the runtime from the command
// line. The limits come from HANGAR_POLICY_TIMEOUT (seconds) here, at the edge; the library itself
// never reads the environment.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { parseHcl, setOwn, type HclBody } from './hcl.ts';
import { evaluatePolicy, describeError, type ImportSpec, type Limits } from './index.ts';
import { runTestCases } from './testing.ts';
import { tfplanFromJson } from './tfplan.ts';
import { toDisplay, fromJS } from './values.ts';

export const SENTINEL_USAGE = `Usage: hangar sentinel <command>

  test [DIR] [--skip-network] [--verbose]
                       run every test case under DIR (default: .), laid out as \`sentinel test\`
                       reads them: <policy>.sentinel with cases in test/<policy>/*.hcl
  apply POLICY [--param KEY=VALUE]... [--plan PLAN.json]
                       evaluate one policy; --plan gives tfplan/v2 from \`terraform show -json\`

HANGAR_POLICY_TIMEOUT bounds one evaluation, in seconds (default 10).`;

interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

/** The limits the environment asks for, or an error message. */
export function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<Limits> | string {
  const raw = env.HANGAR_POLICY_TIMEOUT;
  if (raw === undefined || raw === '') return {};
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600)
    return `HANGAR_POLICY_TIMEOUT must be a number of seconds between 0 and 3600, got ${JSON.stringify(raw)}`;
  return { timeoutMs: seconds * 1000 };
}

/** A --param value: JSON when it reads as JSON (numbers, bools, lists, maps), else the string. */
function paramValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const display = (file: string) => path.relative(process.cwd(), file) || file;

function test(dir: string, flags: { skipNetwork: boolean; verbose: boolean }, limits: Partial<Limits>, io: Io): number {
  if (!existsSync(dir)) {
    io.err(`sentinel: no such directory ${dir}`);
    return 2;
  }
  const results = runTestCases(dir, { limits });
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const r of results) {
    const name = r.file;
    if (r.passed) {
      passed++;
      io.out(`PASS ${name}`);
    } else if (flags.skipNetwork && r.needsNetwork) {
      skipped++;
      io.out(`SKIP ${name}: needs network access (the http import)`);
    } else {
      failed++;
      io.out(`FAIL ${name}: ${r.reason}`);
    }
    if (flags.verbose) for (const line of r.prints) io.out(`  print: ${line}`);
  }
  io.out(`sentinel: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  return failed === 0 && results.length > 0 ? 0 : 1;
}

/** Modules, mocks and params from the sentinel.hcl next to a policy, as `sentinel apply` reads it. */
function policySetConfig(policyFile: string): { imports: Record<string, ImportSpec>; params: Record<string, unknown> } {
  const imports: Record<string, ImportSpec> = {};
  const params: Record<string, unknown> = {};
  const dir = path.dirname(policyFile);
  const configFile = path.join(dir, 'sentinel.hcl');
  if (!existsSync(configFile)) return { imports, params };
  const body: HclBody = parseHcl(readFileSync(configFile, 'utf8'), configFile);
  for (const b of body.blocks) {
    const name = b.labels[0];
    if (!name) continue;
    if (b.type === 'module' || (b.type === 'mock' && b.body.blocks[0]?.type === 'module')) {
      const source = (b.type === 'module' ? b.body : b.body.blocks[0]!.body).attributes.get('source')?.value;
      if (typeof source !== 'string') continue;
      const file = path.resolve(dir, source);
      if (b.type === 'mock' && Object.hasOwn(imports, name)) continue;
      setOwn(imports, name, { source: readFileSync(file, 'utf8'), filename: display(file) });
    } else if (b.type === 'mock' && b.body.attributes.has('data') && !Object.hasOwn(imports, name)) {
      setOwn(imports, name, { data: b.body.attributes.get('data')!.value });
    } else if (b.type === 'param') {
      setOwn(params, name, b.body.attributes.get('value')?.value);
    }
  }
  return { imports, params };
}

function apply(policyFile: string, paramArgs: string[], planFile: string | undefined, limits: Partial<Limits>, io: Io): number {
  if (!existsSync(policyFile)) {
    io.err(`sentinel: no such policy ${policyFile}`);
    return 2;
  }
  const { imports, params } = policySetConfig(policyFile);
  for (const arg of paramArgs) {
    const eq = arg.indexOf('=');
    if (eq <= 0) {
      io.err(`sentinel: --param needs KEY=VALUE, got ${JSON.stringify(arg)}`);
      return 2;
    }
    setOwn(params, arg.slice(0, eq), paramValue(arg.slice(eq + 1)));
  }
  if (planFile) {
    let plan: unknown;
    try {
      plan = JSON.parse(readFileSync(planFile, 'utf8'));
    } catch (err) {
      io.err(`sentinel: cannot read the plan ${planFile}: ${(err as Error).message}`);
      return 2;
    }
    imports['tfplan/v2'] = { data: tfplanFromJson(plan) };
  }
  const r = evaluatePolicy({ source: readFileSync(policyFile, 'utf8'), filename: display(policyFile), params, imports, limits });
  for (const line of r.prints) io.out(line);
  for (const [name, value] of Object.entries(r.rules)) io.out(`rule ${name} = ${toDisplay(fromJS(value), true)}`);
  if (r.error) {
    io.out(`ERROR ${display(policyFile)}: ${describeError(r.error)}`);
    return 2;
  }
  io.out(`${r.result === true ? 'PASS' : 'FAIL'} ${display(policyFile)}${r.result === undefined ? ' (main is undefined)' : ''}`);
  return r.result === true ? 0 : 1;
}

/**
 * A regular expression that backtracks without end would run inside one `matches`, out of reach of
 * the time limit: V8 switches such a match to its linear-time engine once this flag is set.
 */
export function enableLinearRegexFallback(): void {
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
}

/** Runs `hangar sentinel ...`; returns the exit status. */
export function sentinelCommand(argv: string[], io: Io = { out: (l) => console.log(l), err: (l) => console.error(l), env: process.env }): number {
  enableLinearRegexFallback();
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        param: { type: 'string', multiple: true },
        plan: { type: 'string' },
        'skip-network': { type: 'boolean' },
        verbose: { type: 'boolean', short: 'v' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.err(`sentinel: ${(err as Error).message}`);
    io.err(SENTINEL_USAGE);
    return 2;
  }
  const { positionals, values } = parsed;
  const [command, target, ...extra] = positionals;
  if (values.help) {
    io.out(SENTINEL_USAGE);
    return 0;
  }
  const limits = limitsFromEnv(io.env);
  if (typeof limits === 'string') {
    io.err(`sentinel: ${limits}`);
    return 2;
  }
  if (command === 'test' && extra.length === 0) {
    return test(target ?? '.', { skipNetwork: values['skip-network'] ?? false, verbose: values.verbose ?? false }, limits, io);
  }
  if (command === 'apply' && target && extra.length === 0) {
    return apply(target, values.param ?? [], values.plan, limits, io);
  }
  io.err(SENTINEL_USAGE);
  return 2;
}
