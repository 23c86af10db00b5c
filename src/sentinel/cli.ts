// `hangar sentinel test [DIR]` and `hangar sentinel apply POLICY`: the runtime from the command
// line. The limits come from HANGAR_POLICY_TIMEOUT (seconds) here, at the edge; the library itself
// never reads the environment.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { SentinelError } from './errors.ts';
import { setOwn } from './hcl.ts';
import { evaluatePolicy, describeError, type ImportSpec, type Limits } from './index.ts';
import { policySetDeclarations, runTestCases } from './testing.ts';
import { tfconfigFromJson } from './tfconfig.ts';
import { tfplanFromJson } from './tfplan.ts';
import { tfrunFromRun } from './tfrun.ts';
import { tfstateFromJson } from './tfstate.ts';
import { toDisplay, fromJS } from './values.ts';

export const SENTINEL_USAGE = `Usage: hangar sentinel <command>

  test [DIR] [--skip-network] [--verbose]
                       run every test case under DIR (default: .), laid out as \`sentinel test\`
                       reads them: <policy>.sentinel with cases in test/<policy>/*.hcl
  apply POLICY [--param KEY=VALUE]... [--plan PLAN.json] [--state STATE.json] [--run RUN.json]
                       evaluate one policy; --plan gives tfplan/v2, tfconfig/v2 and tfstate/v2
                       (its prior state) from \`terraform show -json PLANFILE\`, --state gives
                       tfstate/v2 from \`terraform show -json\`, --run describes the run for tfrun

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
    } else if (r.orphan) {
      // HashiCorp's CLI looks for the cases of each policy, so it never sees these: say so, but
      // do not count them as failures.
      skipped++;
      io.out(`SKIP ${name}: ${r.reason}`);
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

function readJson(file: string, what: string, io: Io): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    io.err(`sentinel: cannot read the ${what} ${file}: ${(err as Error).message}`);
    return undefined;
  }
}

interface RunFiles {
  plan?: string | undefined;
  state?: string | undefined;
  run?: string | undefined;
}

function apply(policyFile: string, paramArgs: string[], files: RunFiles, limits: Partial<Limits>, io: Io): number {
  if (!existsSync(policyFile)) {
    io.err(`sentinel: no such policy ${policyFile}`);
    return 2;
  }
  // As `sentinel apply` reads the sentinel.hcl beside the policy; a module wins over a mock.
  let declared: ReturnType<typeof policySetDeclarations>;
  try {
    declared = policySetDeclarations(policyFile, { mocks: true });
  } catch (e) {
    if (!(e instanceof SentinelError)) throw e;
    io.err(`sentinel: ${e.message}`);
    return 2;
  }
  const imports: Record<string, ImportSpec> = { ...declared.mocks, ...declared.modules };
  const params = declared.params;
  for (const arg of paramArgs) {
    const eq = arg.indexOf('=');
    if (eq <= 0) {
      io.err(`sentinel: --param needs KEY=VALUE, got ${JSON.stringify(arg)}`);
      return 2;
    }
    setOwn(params, arg.slice(0, eq), paramValue(arg.slice(eq + 1)));
  }
  // What the command line gives wins over a mock of the same import in sentinel.hcl.
  if (files.plan) {
    const plan = readJson(files.plan, 'plan', io);
    if (plan === undefined) return 2;
    imports['tfplan/v2'] = { data: tfplanFromJson(plan) };
    imports['tfconfig/v2'] = { data: tfconfigFromJson(plan) };
    // During a plan, HCP's tfstate/v2 is the state the plan started from.
    const prior = (plan as { prior_state?: unknown } | null)?.prior_state;
    if (!files.state) imports['tfstate/v2'] = { data: tfstateFromJson(prior ?? {}) };
  }
  if (files.state) {
    const state = readJson(files.state, 'state', io);
    if (state === undefined) return 2;
    imports['tfstate/v2'] = { data: tfstateFromJson(state) };
  }
  if (files.run) {
    const run = readJson(files.run, 'run description', io);
    if (run === undefined) return 2;
    imports.tfrun = { data: tfrunFromRun(run) };
  } else if (files.plan && !Object.hasOwn(imports, 'tfrun')) {
    // Evaluating a plan from the command line is a speculative check of no particular run.
    imports.tfrun = { data: tfrunFromRun({ speculative: true }) };
  }
  const r = evaluatePolicy({ source: readFileSync(policyFile, 'utf8'), filename: display(policyFile), params, imports, globals: declared.globals, limits });
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
        state: { type: 'string' },
        run: { type: 'string' },
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
    return apply(target, values.param ?? [], { plan: values.plan, state: values.state, run: values.run }, limits, io);
  }
  io.err(SENTINEL_USAGE);
  return 2;
}
