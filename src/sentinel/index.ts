// The Sentinel runtime's public API. It is a library of its own: nothing here reads files, the
// network, the environment or Hangar's configuration; the caller passes sources and values in.
//
//   const r = evaluatePolicy({
//     source, filename: 'restrict.sentinel',
//     params: { max: 3 },
//     imports: { 'tfplan/v2': { data: plan }, 'tfplan-functions': { source: fnSrc, filename: 'f.sentinel' } },
//     limits: { timeoutMs: 2000, maxSteps: 10_000_000 },
//   });
//   r.result  // true | false | undefined (undefined: main was undefined, or an error)
//   r.rules   // the value of every top-level rule that was evaluated, as JSON-like values
//   r.prints  // what print() wrote, in order
//   r.error   // { message, file, line, column } when parsing or evaluation failed
import type { Program } from './ast.ts';
import { formatPos, LimitError, NetworkError, SentinelError, type Pos } from './errors.ts';
import { Interpreter, ModuleObject, type Limits } from './interpreter.ts';
import { parse } from './parser.ts';
import { standardImport } from './stdlib.ts';
import { DataObject, fromJS, SFloat, SRule, toJS, typeOf, type Value } from './values.ts';

export { SentinelError, LimitError, formatPos, type Pos } from './errors.ts';
export { DEFAULT_LIMITS, type Limits } from './interpreter.ts';
export { parse } from './parser.ts';
export { STANDARD_IMPORTS } from './stdlib.ts';

/**
 * What an `import "name"` resolves to, besides the standard imports: a Sentinel file (a module,
 * or a mock written as Sentinel) whose top-level names become the import's attributes, or plain
 * data (a `data = {...}` mock) whose top-level keys do.
 */
export type ImportSpec = { source: string; filename: string } | { data: unknown };

export interface EvaluateOptions {
  source: string;
  /** Shown in error positions. */
  filename: string;
  /** Values for `param` declarations (JSON-like values); others take their defaults. */
  params?: Record<string, unknown>;
  /** Mocks and modules by import name; these take precedence over standard imports. */
  imports?: Record<string, ImportSpec>;
  /** Variables defined before the policy runs (`global` blocks of test cases). */
  globals?: Record<string, unknown>;
  limits?: Partial<Limits>;
  /** The instant `time.now` reports; defaults to the start of the evaluation. */
  now?: Date;
  /** Rules to evaluate after `main` even if `main` did not need them (a test case's rules). */
  evaluateRules?: string[];
  /** Parsed files by source text, reused across evaluations by a caller that runs many. */
  parseCache?: Map<string, Program>;
}

export interface PolicyError {
  /** `limit`: the step or time bound ended it; `network`: it used the http import. */
  kind: 'error' | 'limit' | 'network';
  message: string;
  file: string;
  line: number;
  column: number;
}

export interface EvaluationResult {
  /** Whether the policy passed (see `mainPasses`); undefined when main is undefined or evaluation failed. */
  result: boolean | undefined;
  /** Every top-level rule that was evaluated, by name, as JSON-like values (undefined stays undefined). */
  rules: Record<string, unknown>;
  prints: string[];
  error?: PolicyError;
  /** Where each rule in `rules` is declared (for a trace of the rules a result came from). */
  rulePositions: Record<string, { line: number; column: number }>;
}

function parseCached(source: string, filename: string, cache?: Map<string, Program>): Program {
  const key = `${filename}\0${source}`;
  const hit = cache?.get(key);
  if (hit) return hit;
  const program = parse(source, filename);
  if (cache) {
    if (cache.size >= 256) cache.delete(cache.keys().next().value!);
    cache.set(key, program);
  }
  return program;
}

/** The raw outcome: Sentinel values, for callers (the test runner) that compare them. */
export interface RawEvaluation {
  main: Value;
  rules: Map<string, Value>;
  positions: Map<string, Pos>;
  prints: string[];
  error?: PolicyError;
}

export function evaluateRaw(options: EvaluateOptions): RawEvaluation {
  const now = (options.now ?? new Date()).getTime();
  const modules = new Map<string, Value>();
  const loading = new Set<string>();
  const params = new Map(Object.entries(options.params ?? {}).map(([k, v]) => [k, fromJS(v)]));
  let interp: Interpreter;
  const host = {
    params,
    resolveImport(path: string, pos: Pos): Value {
      const cached = modules.get(path);
      if (cached !== undefined) return cached;
      // Own properties only: `import "constructor"` must not find Object.prototype's.
      const spec = options.imports && Object.hasOwn(options.imports, path) ? options.imports[path] : undefined;
      let value: Value;
      if (spec && 'data' in spec) {
        const data = spec.data;
        if (typeof data !== 'object' || data === null || Array.isArray(data) || data instanceof Map) {
          throw new SentinelError(`the mock data for the import ${JSON.stringify(path)} is not a map`, pos);
        }
        // Converted attribute by attribute on first use: a plan's `raw` copy costs nothing unread.
        value = new DataObject(data as Record<string, unknown>);
      } else if (spec) {
        if (loading.has(path)) throw new SentinelError(`import cycle: ${JSON.stringify(path)} imports itself`, pos);
        loading.add(path);
        const program = parseCached(spec.source, spec.filename, options.parseCache);
        value = new ModuleObject(interp.runProgram(program, { module: true }), interp);
        loading.delete(path);
      } else {
        const std = standardImport(path, now);
        if (!std) throw new SentinelError(`unknown import ${JSON.stringify(path)}: not a standard import, and no mock or module was given for it`, pos);
        value = std;
      }
      modules.set(path, value);
      return value;
    },
  };
  interp = new Interpreter(host, options.limits);
  const rules = new Map<string, Value>();
  const positions = new Map<string, Pos>();
  let main: Value;
  try {
    const program = parseCached(options.source, options.filename, options.parseCache);
    const globals = new Map(Object.entries(options.globals ?? {}).map(([k, v]) => [k, fromJS(v)]));
    const scope = interp.runProgram(program, { module: false, globals });
    const mainPos: Pos = { file: options.filename, line: 1, column: 1 };
    if (!scope.vars.has('main')) throw new SentinelError('the policy has no main rule', mainPos);
    const mainValue = scope.vars.get('main');
    main = mainValue instanceof SRule ? interp.ruleValue(mainValue, mainValue.node.pos) : mainValue;
    for (const name of options.evaluateRules ?? []) {
      const r = scope.vars.get(name);
      if (r instanceof SRule) interp.ruleValue(r, r.node.pos);
    }
    for (const [name, v] of scope.vars) {
      if (v instanceof SRule && v.state === 2) rules.set(name, v.value);
    }
    // Where each rule is declared: its assignment's start (`name = rule {...}`), as traces show it.
    for (const stmt of program.body) {
      if (stmt.type === 'assign' && stmt.op === '=' && stmt.target.type === 'ident' && stmt.value.type === 'rule' && rules.has(stmt.target.name)) {
        positions.set(stmt.target.name, stmt.target.pos);
      }
    }
    if (!(mainValue instanceof SRule)) rules.set('main', main);
  } catch (err) {
    return { main: undefined, rules, positions, prints: interp.prints, error: toPolicyError(err, options.filename) };
  }
  return { main, rules, positions, prints: interp.prints };
}

function toPolicyError(err: unknown, filename: string): PolicyError {
  if (err instanceof SentinelError) {
    const kind = err instanceof LimitError ? 'limit' : err instanceof NetworkError ? 'network' : 'error';
    return { kind, message: err.detail, ...err.pos };
  }
  // The JavaScript stack ran out (deep recursion in policy code) before the call-depth bound.
  if (err instanceof RangeError) return { kind: 'limit', message: `evaluation stopped: ${err.message}`, file: filename, line: 1, column: 1 };
  // A bug of the runtime's own: reported on the policy rather than thrown at the caller.
  return { kind: 'error', message: `internal error: ${err instanceof Error ? err.message : String(err)}`, file: filename, line: 1, column: 1 };
}

/**
 * Whether a value of `main` passes, as the language's page on `main` has it: a bool is itself;
 * a string, number, list or map passes when it is zero or empty (a `main` listing violations
 * passes with none); undefined is undefined; anything else is no result (null).
 */
export function mainPasses(main: Value): boolean | undefined | null {
  if (main === undefined || typeof main === 'boolean') return main;
  if (typeof main === 'string' || Array.isArray(main)) return main.length === 0;
  if (typeof main === 'number') return main === 0;
  if (main instanceof SFloat) return main.v === 0;
  if (main instanceof Map) return main.size === 0;
  return null;
}

/** Evaluates one policy. Never throws for a problem in the policy: it is reported in `error`. */
export function evaluatePolicy(options: EvaluateOptions): EvaluationResult {
  const raw = evaluateRaw(options);
  const rules: Record<string, unknown> = {};
  for (const [k, v] of raw.rules) rules[k] = toJS(v);
  const passes = raw.error ? undefined : mainPasses(raw.main);
  const result: EvaluationResult = {
    result: passes ?? undefined,
    rules,
    prints: raw.prints,
    rulePositions: Object.fromEntries([...raw.positions].map(([name, p]) => [name, { line: p.line, column: p.column }])),
  };
  if (raw.error) result.error = raw.error;
  else if (passes === null) {
    result.error = {
      kind: 'error',
      message: `main must be a bool, string, number, list or map, got ${typeOf(raw.main)}`,
      file: options.filename,
      line: 1,
      column: 1,
    };
  }
  return result;
}

export const describeError = (e: PolicyError) => `${formatPos(e)}: ${e.message}`;
