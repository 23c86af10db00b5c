// The evaluator: walks the syntax tree with Sentinel's scoping (a variable found in an enclosing
// scope is modified there, otherwise it is created in the current one; functions, `for` and the
// quantifiers open a scope, `if` and `case` do not), lazy memoised rules, and undefined
// propagation. Every expression and statement is one step against `maxSteps`; the clock is read
// every few thousand steps against `timeoutMs`.
import type { Expr, Program, Stmt } from './ast.ts';
import { LimitError, SentinelError, type Pos } from './errors.ts';
import { BUILTINS, lengthOf } from './builtins.ts';
import { arith, compare, contains, matches } from './operators.ts';
import { equals, mapKey, SBuiltin, SFunc, SObject, SRule, typeOf, type CallContext, type Scope, type SMap, type Value } from './values.ts';

export interface Limits {
  /** Expressions and statements evaluated before the policy is stopped. */
  maxSteps: number;
  /** Wall-clock bound on one evaluation, in milliseconds. */
  timeoutMs: number;
  /** Nesting of function calls and rule evaluations. */
  maxCallDepth: number;
}

// 10 million steps is a few seconds of CPU; the corpus's largest case takes 20 thousand, a policy
// walking 10,000 resource changes about half a million. Every element a policy adds to a
// collection is a step, so the bound also caps what it can allocate.
export const DEFAULT_LIMITS: Limits = { maxSteps: 10_000_000, timeoutMs: 10_000, maxCallDepth: 256 };

/** print() output kept per evaluation; past it, one line says so and the rest is dropped. */
export const MAX_PRINT_CHARS = 1024 * 1024;

export interface Host {
  /** The value of `import "path"` (stdlib, mock or module), or an error for an unknown import. */
  resolveImport(path: string, pos: Pos): Value;
  /** Values the caller gave for `param` declarations. */
  params: Map<string, Value>;
}

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
const RETURN = 3;
type Signal = 0 | 1 | 2 | 3;

/** The attributes of a module are the top-level names of its file. */
export class ModuleObject extends SObject {
  readonly typeName = 'module';
  readonly scope: Scope;
  private readonly interp: Interpreter;
  constructor(scope: Scope, interp: Interpreter) {
    super();
    this.scope = scope;
    this.interp = interp;
  }
  get(name: string): Value {
    const v = this.scope.vars.get(name);
    return v instanceof SRule ? this.interp.ruleValue(v, v.node.pos) : v;
  }
  override attributeNames(): string[] {
    return [...this.scope.vars.keys()];
  }
}

/** What a host function sees of the evaluation: one small object per call. */
class HostCall implements CallContext {
  readonly pos: Pos;
  private readonly interp: Interpreter;
  constructor(interp: Interpreter, pos: Pos) {
    this.interp = interp;
    this.pos = pos;
  }
  charge(n: number): void {
    this.interp.charge(n, this.pos);
  }
  call(fn: Value, args: Value[]): Value {
    return this.interp.callValue(fn, args, this.pos);
  }
  print(line: string): void {
    this.interp.print(line);
  }
  fail(message: string): never {
    throw new SentinelError(message, this.pos);
  }
}

/**
 * The specification's BoolExpr (conditions, `when` predicates, the bodies of any, all and filter):
 * "Any other value type becomes the undefined value."
 */
function boolExpr(v: Value): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

const RULE_RESULT_TYPES = new Set(['bool', 'string', 'int', 'float', 'list', 'map']);

export class Interpreter {
  readonly prints: string[] = [];
  private readonly limits: Limits;
  private readonly host: Host;
  private steps = 0;
  private readonly deadline: number;
  private depth = 0;
  private returnValue: Value = undefined;

  constructor(host: Host, limits: Partial<Limits> = {}) {
    this.host = host;
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.deadline = performance.now() + this.limits.timeoutMs;
  }

  /** Runs a file's statements in a fresh top-level scope and returns that scope. */
  runProgram(program: Program, options: { module: boolean; globals?: Map<string, Value> }): Scope {
    const scope: Scope = { vars: new Map(options.globals), parent: null, constants: new Set(), imports: new Set() };
    // Named functions are declarations: callable from anywhere in the file, even above them.
    for (const stmt of program.body) {
      if (stmt.type !== 'funcdecl') continue;
      if (scope.vars.has(stmt.name)) throw new SentinelError(`cannot declare function ${stmt.name}: the name is already used`, stmt.pos);
      scope.vars.set(stmt.name, new SFunc(stmt.func, scope));
      scope.constants!.add(stmt.name);
    }
    for (const stmt of program.body) {
      if (options.module && stmt.type === 'param') throw new SentinelError('modules cannot declare parameters', stmt.pos);
      this.exec(stmt, scope);
    }
    return scope;
  }

  private tick(pos: Pos): void {
    if (++this.steps > this.limits.maxSteps) {
      throw new LimitError(`evaluation stopped after ${this.limits.maxSteps} steps (the step limit)`, pos);
    }
    if ((this.steps & 4095) === 0 && performance.now() > this.deadline) {
      throw new LimitError(`evaluation stopped after ${this.limits.timeoutMs} ms (the time limit)`, pos);
    }
  }

  charge(n: number, pos: Pos): void {
    if (n <= 0) return;
    this.steps += n - 1;
    this.tick(pos);
  }

  private ctx(pos: Pos): CallContext {
    return new HostCall(this, pos);
  }

  private printed = 0;
  print(line: string): void {
    if (this.printed > MAX_PRINT_CHARS) return;
    this.printed += line.length;
    this.prints.push(this.printed > MAX_PRINT_CHARS ? `(print output truncated at ${MAX_PRINT_CHARS} characters)` : line);
  }

  private execBlock(body: Stmt[], scope: Scope): Signal {
    for (let i = 0; i < body.length; i++) {
      const signal = this.exec(body[i]!, scope);
      if (signal !== NORMAL) return signal;
    }
    return NORMAL;
  }

  private exec(stmt: Stmt, scope: Scope): Signal {
    this.tick(stmt.pos);
    switch (stmt.type) {
      case 'expr':
        this.eval(stmt.expr, scope);
        return NORMAL;
      case 'assign':
        this.assign(stmt, scope);
        return NORMAL;
      case 'if': {
        // The condition is a BoolExpr: a value that is not a bool is undefined (the specification's
        // Boolean Expressions), and an undefined condition is not met (the language's conditionals
        // page: `if value["key"] > 12` on an empty map skips the body).
        const cond = boolExpr(this.eval(stmt.cond, scope));
        if (cond === true) return this.execBlock(stmt.then, scope);
        return stmt.otherwise ? this.execBlock(stmt.otherwise, scope) : NORMAL;
      }
      case 'for':
        return this.execFor(stmt, scope);
      case 'case':
        return this.execCase(stmt, scope);
      case 'return':
        this.returnValue = stmt.value ? this.eval(stmt.value, scope) : undefined;
        return RETURN;
      case 'break':
        return BREAK;
      case 'continue':
        return CONTINUE;
      case 'import': {
        if (scope.vars.has(stmt.alias)) {
          // The same import under the same name again changes nothing: older Sentinel releases
          // accepted it, and published policies still carry such repeats.
          if (scope.vars.get(stmt.alias) === this.host.resolveImport(stmt.path, stmt.pos)) return NORMAL;
          throw new SentinelError(`${stmt.alias} is already declared`, stmt.pos);
        }
        scope.vars.set(stmt.alias, this.host.resolveImport(stmt.path, stmt.pos));
        scope.imports?.add(stmt.alias);
        return NORMAL;
      }
      case 'param': {
        if (scope.vars.has(stmt.name)) throw new SentinelError(`${stmt.name} is already declared`, stmt.pos);
        // "Parameters must not conflict with … any reserved or pre-declared identifiers."
        if (BUILTINS.has(stmt.name)) throw new SentinelError(`parameter ${stmt.name} conflicts with the built-in function ${stmt.name}`, stmt.pos);
        let value: Value;
        if (this.host.params.has(stmt.name)) value = this.host.params.get(stmt.name);
        else if (stmt.fallback) value = this.eval(stmt.fallback, scope);
        else throw new SentinelError(`no value given for parameter ${stmt.name}, which has no default`, stmt.pos);
        scope.vars.set(stmt.name, value);
        return NORMAL;
      }
      case 'funcdecl':
        // Declared before the file ran (runProgram); only the top level may hold one.
        return NORMAL;
    }
  }

  private execFor(stmt: Stmt & { type: 'for' }, scope: Scope): Signal {
    const coll = this.eval(stmt.collection, scope);
    const inner: Scope = { vars: new Map(), parent: scope };
    const [a, b] = stmt.names as [string, string | undefined];
    const run = () => this.execBlock(stmt.body, inner);
    if (Array.isArray(coll)) {
      const n = coll.length;
      for (let i = 0; i < n; i++) {
        if (b === undefined) inner.vars.set(a, coll[i]);
        else {
          inner.vars.set(a, i);
          inner.vars.set(b, coll[i]);
        }
        const signal = run();
        if (signal === BREAK) break;
        if (signal === RETURN) return RETURN;
      }
      return NORMAL;
    }
    if (coll instanceof Map) {
      for (const [k, v] of coll) {
        inner.vars.set(a, k);
        if (b !== undefined) inner.vars.set(b, v);
        const signal = run();
        if (signal === BREAK) break;
        if (signal === RETURN) return RETURN;
      }
      return NORMAL;
    }
    throw new SentinelError(`cannot iterate over ${typeOf(coll)} in for`, stmt.collection.pos);
  }

  private execCase(stmt: Stmt & { type: 'case' }, scope: Scope): Signal {
    const subject = stmt.subject ? this.eval(stmt.subject, scope) : undefined;
    let fallback: Stmt[] | null = null;
    for (const clause of stmt.clauses) {
      if (!clause.values) {
        fallback = clause.body;
        continue;
      }
      for (const e of clause.values) {
        const v = this.eval(e, scope);
        const hit = stmt.subject ? equals(subject, v) : v === true;
        if (hit) return this.execBlock(clause.body, scope);
      }
    }
    return fallback ? this.execBlock(fallback, scope) : NORMAL;
  }

  private assign(stmt: Stmt & { type: 'assign' }, scope: Scope): void {
    const target = stmt.target;
    let value = this.eval(stmt.value, scope);
    if (stmt.op !== '=') {
      const current = this.eval(target, scope);
      if (stmt.op === '+=' && Array.isArray(current) && Array.isArray(value)) {
        // The lists page: "For `+=`, the left-hand list is modified in place" (every name bound
        // to that list sees the new elements), where `a = a + b` makes a new list.
        this.charge(value.length, stmt.pos);
        for (const x of value.slice()) current.push(x);
        return;
      }
      value = arith(stmt.op[0]!, current, value, stmt.pos, this);
    }
    if (target.type === 'ident') {
      let s: Scope | null = scope;
      while (s && !s.vars.has(target.name)) s = s.parent;
      const home = s ?? scope;
      if (home.constants?.has(target.name)) throw new SentinelError(`cannot assign to ${target.name}: it is a named function`, target.pos);
      if (home.imports?.has(target.name)) {
        // Imports are not variables (the language's imports page): assigning the name shadows
        // the import in the scope of the assignment; everywhere else the import stays.
        if (home !== scope) scope.vars.set(target.name, value);
        else {
          home.imports.delete(target.name);
          home.vars.set(target.name, value);
        }
        return;
      }
      home.vars.set(target.name, value);
      return;
    }
    if (target.type !== 'selector' && target.type !== 'index') throw new SentinelError('cannot assign to this expression', target.pos);
    const container = this.eval(target.target, scope);
    const keyValue = target.type === 'selector' ? target.name : this.eval(target.index, scope);
    if (container instanceof Map) {
      const key = keyValue === null ? undefined : mapKey(keyValue);
      if (key === undefined) throw new SentinelError(`a map key cannot be ${typeOf(keyValue)}`, target.pos);
      container.set(key, value);
    } else if (Array.isArray(container) && typeof keyValue === 'number') {
      const i = keyValue < 0 ? container.length + keyValue : keyValue;
      if (i < 0 || i >= container.length) throw new SentinelError(`list index ${keyValue} out of range (length ${container.length})`, target.pos);
      container[i] = value;
    } else {
      throw new SentinelError(`cannot assign to an element of ${typeOf(container)}`, target.pos);
    }
  }

  eval(e: Expr, scope: Scope): Value {
    this.tick(e.pos);
    switch (e.type) {
      case 'literal':
        return e.value as Value;
      case 'ident': {
        let s: Scope | null = scope;
        while (s) {
          const v = s.vars.get(e.name);
          if (v !== undefined || s.vars.has(e.name)) return v instanceof SRule ? this.ruleValue(v, e.pos) : v;
          s = s.parent;
        }
        // A name never assigned is undefined, not an error (the language's scope examples rely on it).
        return BUILTINS.get(e.name);
      }
      case 'binary':
        return this.binary(e, scope);
      case 'selector': {
        const target = this.eval(e.target, scope);
        return this.select(target, e.name, e.pos);
      }
      case 'index': {
        const target = this.eval(e.target, scope);
        const index = this.eval(e.index, scope);
        return this.index(target, index, e.pos);
      }
      case 'call': {
        const callee = this.eval(e.callee, scope);
        const args: Value[] = new Array(e.args.length);
        for (let i = 0; i < e.args.length; i++) args[i] = this.eval(e.args[i]!, scope);
        if (callee === undefined) return undefined;
        return this.callValue(callee, args, e.pos);
      }
      case 'unary': {
        const v = this.eval(e.operand, scope);
        if (v === undefined) return undefined;
        if (e.op === 'not') {
          if (typeof v !== 'boolean') throw new SentinelError(`not: operand must be a bool, got ${typeOf(v)}`, e.pos);
          return !v;
        }
        return arith(e.op, 0, v, e.pos, this);
      }
      case 'test': {
        const v = this.eval(e.operand, scope);
        if (e.test === 'defined') return (v !== undefined) !== e.negate;
        if (v === undefined) return undefined;
        // Emptiness follows `length`: strings and collections only.
        const size = lengthOf(v);
        if (size === null) throw new SentinelError(`is ${e.negate ? 'not ' : ''}empty: ${typeOf(v)} has no length`, e.pos);
        return (size === 0) !== e.negate;
      }
      case 'list': {
        const out: Value[] = new Array(e.items.length);
        for (let i = 0; i < e.items.length; i++) out[i] = this.eval(e.items[i]!, scope);
        return out;
      }
      case 'map': {
        const out: SMap = new Map();
        for (const [ke, ve] of e.entries) {
          const kv = this.eval(ke, scope);
          // "Keys can only be a boolean, numeric, or string type": not null either.
          const key = kv === null ? undefined : mapKey(kv);
          if (key === undefined) throw new SentinelError(`a map key cannot be ${typeOf(kv)}`, ke.pos);
          out.set(key, this.eval(ve, scope));
        }
        return out;
      }
      case 'slice':
        return this.slice(e, scope);
      case 'func':
        return new SFunc(e, scope);
      case 'rule':
        return new SRule(e, scope);
      case 'quantifier':
        return this.quantifier(e, scope);
    }
  }

  private binary(e: Expr & { type: 'binary' }, scope: Scope): Value {
    switch (e.op) {
      case 'and': {
        const l = this.eval(e.left, scope);
        if (l === false) return false;
        if (l !== true && l !== undefined) throw new SentinelError(`and: left operand must be a bool, got ${typeOf(l)}`, e.pos);
        const r = this.eval(e.right, scope);
        if (r !== true && r !== false && r !== undefined) throw new SentinelError(`and: right operand must be a bool, got ${typeOf(r)}`, e.pos);
        if (l === undefined) return undefined;
        return r;
      }
      case 'or': {
        const l = this.eval(e.left, scope);
        if (l === true) return true;
        if (l !== false && l !== undefined) throw new SentinelError(`or: left operand must be a bool, got ${typeOf(l)}`, e.pos);
        const r = this.eval(e.right, scope);
        if (r !== true && r !== false && r !== undefined) throw new SentinelError(`or: right operand must be a bool, got ${typeOf(r)}`, e.pos);
        if (l === undefined) return r === true ? true : undefined;
        return r;
      }
      case 'xor': {
        const l = this.eval(e.left, scope);
        const r = this.eval(e.right, scope);
        if (l === undefined || r === undefined) return undefined;
        if (typeof l !== 'boolean' || typeof r !== 'boolean') throw new SentinelError(`xor: operands must be bools, got ${typeOf(l)} and ${typeOf(r)}`, e.pos);
        return l !== r;
      }
      case 'else': {
        const l = this.eval(e.left, scope);
        return l !== undefined ? l : this.eval(e.right, scope);
      }
    }
    const l = this.eval(e.left, scope);
    const r = this.eval(e.right, scope);
    if (l === undefined || r === undefined) return undefined;
    let result: boolean;
    switch (e.op) {
      case '==':
      case 'is':
        result = equals(l, r);
        break;
      case 'in':
        result = contains(r, l, e.pos, 'in');
        break;
      case 'contains':
        result = contains(l, r, e.pos, 'contains');
        break;
      case 'matches':
        result = matches(l, r, e.pos);
        break;
      case '<':
      case '<=':
      case '>':
      case '>=':
        return compare(e.op, l, r, e.pos);
      default:
        return arith(e.op, l, r, e.pos, this);
    }
    return e.negate ? !result : result;
  }

  select(target: Value, name: string, pos: Pos): Value {
    if (target instanceof Map) return target.get(name);
    if (target === undefined || target === null) return undefined;
    if (target instanceof SObject) {
      const v = target.get(name, this.ctx(pos));
      return v instanceof SRule ? this.ruleValue(v, pos) : v;
    }
    throw new SentinelError(`cannot select attribute ${name} of ${typeOf(target)}`, pos);
  }

  private index(target: Value, index: Value, pos: Pos): Value {
    if (target === undefined || target === null || index === undefined) return undefined;
    if (target instanceof Map) {
      const key = mapKey(index);
      return key === undefined ? undefined : target.get(key);
    }
    if (Array.isArray(target) || typeof target === 'string') {
      if (typeof index !== 'number') throw new SentinelError(`a ${typeOf(target)} index must be an int, got ${typeOf(index)}`, pos);
      const i = index < 0 ? target.length + index : index;
      return i >= 0 && i < target.length ? target[i] : undefined;
    }
    if (target instanceof SObject && typeof index === 'string') return this.select(target, index, pos);
    throw new SentinelError(`cannot index ${typeOf(target)}`, pos);
  }

  private slice(e: Expr & { type: 'slice' }, scope: Scope): Value {
    const target = this.eval(e.target, scope);
    const low = e.low ? this.eval(e.low, scope) : 0;
    // The specification: slicing null or undefined, or with bounds outside 0 <= low <= high <=
    // length, gives undefined; slicing anything but a list or a string is an error.
    if (target === undefined || target === null || low === undefined) return undefined;
    if (!Array.isArray(target) && typeof target !== 'string') throw new SentinelError(`cannot slice ${typeOf(target)}`, e.pos);
    const high = e.high ? this.eval(e.high, scope) : target.length;
    if (high === undefined) return undefined;
    if (typeof low !== 'number' || typeof high !== 'number') throw new SentinelError('slice bounds must be ints', e.pos);
    if (low < 0 || high > target.length || low > high) return undefined;
    this.charge(high - low, e.pos);
    return target.slice(low, high);
  }

  private quantifier(e: Expr & { type: 'quantifier' }, scope: Scope): Value {
    const coll = this.eval(e.collection, scope);
    if (coll === undefined) return undefined;
    const inner: Scope = { vars: new Map(), parent: scope };
    const [a, b] = e.names as [string, string | undefined];
    const isList = Array.isArray(coll);
    if (!isList && !(coll instanceof Map)) throw new SentinelError(`${e.kind}: cannot iterate over ${typeOf(coll)}`, e.collection.pos);
    const entries: Iterable<[Value, Value]> = isList ? (coll as Value[]).entries() : (coll as SMap).entries();
    let sawUndefined = false;
    const listOut: Value[] = [];
    const mapOut: SMap = new Map();
    for (const [k, v] of entries) {
      if (isList) {
        if (b === undefined) inner.vars.set(a, v);
        else {
          inner.vars.set(a, k);
          inner.vars.set(b, v);
        }
      } else {
        inner.vars.set(a, k);
        if (b !== undefined) inner.vars.set(b, v);
      }
      const raw = this.eval(e.body, inner);
      if (e.kind === 'map') {
        listOut.push(raw);
        continue;
      }
      // The body of any, all and filter is a BoolExpr: anything but a bool counts as undefined.
      const r = boolExpr(raw);
      switch (e.kind) {
        case 'all':
          if (r === false) return false;
          if (r === undefined) sawUndefined = true;
          break;
        case 'any':
          if (r === true) return true;
          if (r === undefined) sawUndefined = true;
          break;
        case 'filter':
          // The specification: "If an iteration of the expression body results in undefined, the
          // entire result set is undefined."
          if (r === undefined) return undefined;
          if (r) {
            if (isList) listOut.push(v);
            else mapOut.set(k as string, v);
          }
          break;
      }
    }
    switch (e.kind) {
      case 'all':
        return sawUndefined ? undefined : true;
      case 'any':
        return sawUndefined ? undefined : false;
      case 'filter':
        return isList ? listOut : mapOut;
      case 'map':
        return listOut;
    }
  }

  callValue(callee: Value, args: Value[], pos: Pos): Value {
    if (callee instanceof SBuiltin) {
      if (++this.depth > this.limits.maxCallDepth) throw new LimitError(`call depth exceeds ${this.limits.maxCallDepth}`, pos);
      try {
        return callee.fn(args, this.ctx(pos));
      } finally {
        this.depth--;
      }
    }
    if (!(callee instanceof SFunc)) throw new SentinelError(`cannot call a value of type ${typeOf(callee)}`, pos);
    const params = callee.node.params;
    if (args.length !== params.length) {
      const name = callee.node.name ? `function ${callee.node.name}` : 'function';
      throw new SentinelError(`${name} takes ${params.length} argument(s), got ${args.length}`, pos);
    }
    const scope: Scope = { vars: new Map(), parent: callee.scope };
    for (let i = 0; i < params.length; i++) scope.vars.set(params[i]!, args[i]);
    if (++this.depth > this.limits.maxCallDepth) throw new LimitError(`call depth exceeds ${this.limits.maxCallDepth}`, pos);
    try {
      const signal = this.execBlock(callee.node.body, scope);
      if (signal === RETURN) {
        const v = this.returnValue;
        this.returnValue = undefined;
        return v;
      }
      return undefined;
    } finally {
      this.depth--;
    }
  }

  /** A rule's value: evaluated on first use, then remembered. */
  ruleValue(rule: SRule, pos: Pos): Value {
    if (rule.state === 2) return rule.value;
    if (rule.state === 1) throw new SentinelError('rule refers to itself', pos);
    rule.state = 1;
    if (++this.depth > this.limits.maxCallDepth) throw new LimitError(`call depth exceeds ${this.limits.maxCallDepth}`, pos);
    try {
      let value: Value;
      const node = rule.node;
      // The predicate is a BoolExpr: a value that is not a bool is undefined, and so is the rule.
      const when = node.when ? boolExpr(this.eval(node.when, rule.scope)) : true;
      if (when === undefined) value = undefined;
      else value = when ? this.eval(node.body, rule.scope) : true;
      // The rules page: "The result of a rule must be either a boolean, string, integer, float,
      // list, or map. All other types will result in a runtime error." (undefined stays undefined.)
      if (value !== undefined && !RULE_RESULT_TYPES.has(typeOf(value))) {
        throw new SentinelError(`a rule's result must be a bool, string, int, float, list or map, got ${typeOf(value)}`, node.body.pos);
      }
      rule.value = value;
      rule.state = 2;
      return value;
    } catch (err) {
      rule.state = 0;
      throw err;
    } finally {
      this.depth--;
    }
  }
}
