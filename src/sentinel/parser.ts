// A recursive-descent parser for Sentinel with the specification's precedence (higher binds
// tighter): 6 `* / %`, 5 `+ -`, 4 `else`, 3 comparisons (`== != < <= > >= is, is not, in,
// not in, contains, not contains, matches, not matches`), 2 `and`, 1 `or xor`. Unary `-`, `+`,
// `!` and `not` apply to a primary expression with its selectors, indexes and calls, and so do
// the postfix `is [not] empty` and `is [not] defined`.
import type { Expr, Program, Stmt } from './ast.ts';
import { SentinelError, type Pos } from './errors.ts';
import { tokenize, type Token } from './lexer.ts';
import { SFloat } from './values.ts';

const PRECEDENCE: Record<string, number> = {
  or: 1,
  xor: 1,
  and: 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '<=': 3,
  '>': 3,
  '>=': 3,
  is: 3,
  in: 3,
  contains: 3,
  matches: 3,
  else: 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  '%': 6,
};
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=']);

export function parse(source: string, file: string): Program {
  return new Parser(tokenize(source, file)).program(file);
}

class Parser {
  private readonly tokens: Token[];
  private i = 0;
  /** Depth of function bodies being parsed: `return` is only legal inside one. */
  private funcDepth = 0;
  private loopDepth = 0;

  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  private get tok(): Token {
    return this.tokens[this.i]!;
  }
  private peek(offset = 1): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }
  private is(text: string): boolean {
    const t = this.tok;
    return (t.kind === 'op' || t.kind === 'keyword') && t.text === text;
  }
  private next(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }
  private fail(message: string, pos: Pos = this.tok.pos): never {
    throw new SentinelError(message, pos);
  }
  private describe(t: Token): string {
    if (t.kind === 'eof') return 'end of file';
    if (t.kind === 'string') return `string ${JSON.stringify(t.text)}`;
    return `${t.kind === 'ident' ? 'identifier ' : ''}'${t.text}'`;
  }
  private expect(text: string): Token {
    if (!this.is(text)) this.fail(`expected '${text}', found ${this.describe(this.tok)}`);
    return this.next();
  }
  private ident(what = 'identifier'): string {
    const t = this.tok;
    if (t.kind !== 'ident') this.fail(`expected ${what}, found ${this.describe(t)}`);
    this.next();
    return t.text;
  }

  program(file: string): Program {
    const body: Stmt[] = [];
    let seenOther = false;
    let seenParam = false;
    for (;;) {
      this.semicolons();
      if (this.tok.kind === 'eof') break;
      const stmt = this.statement(true);
      if (stmt.type === 'import' && (seenOther || seenParam)) this.fail('imports must come before any other statement', stmt.pos);
      // The specification: "Parameter declarations must appear at the top of the source file,
      // following imports."
      if (stmt.type === 'param' && seenOther) this.fail('parameters must come after the imports and before any other statement', stmt.pos);
      if (stmt.type === 'param') seenParam = true;
      else if (stmt.type !== 'import') seenOther = true;
      body.push(stmt);
    }
    return { file, body };
  }

  private block(): Stmt[] {
    this.expect('{');
    const body: Stmt[] = [];
    for (this.semicolons(); !this.is('}'); this.semicolons()) {
      if (this.tok.kind === 'eof') this.fail("expected '}', found end of file");
      body.push(this.statement(false));
    }
    this.next();
    return body;
  }

  /**
   * The grammar ends statements with `;`, which idiomatic source leaves out (the specification
   * inserts them at line ends); an explicit one, or several, between statements is skipped.
   */
  private semicolons(): void {
    while (this.is(';')) this.next();
  }

  private statement(topLevel: boolean): Stmt {
    const t = this.tok;
    const pos = t.pos;
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'import': {
          if (!topLevel) this.fail('import is only allowed at the top level of a file');
          this.next();
          const path = this.tok;
          if (path.kind !== 'string') this.fail(`expected import path string, found ${this.describe(path)}`);
          this.next();
          let alias = path.text.split('/')[0]!;
          if (this.is('as')) {
            this.next();
            alias = this.ident('import alias');
          }
          return { type: 'import', pos, path: path.text, alias };
        }
        case 'param': {
          if (!topLevel) this.fail('param is only allowed at the top level of a file');
          this.next();
          const name = this.ident('parameter name');
          let fallback: Expr | null = null;
          if (this.is('default')) {
            this.next();
            fallback = this.expression();
          }
          return { type: 'param', pos, name, fallback };
        }
        case 'func':
          if (this.peek().kind === 'ident') {
            if (!topLevel) this.fail('named functions must be declared at the top level of a file');
            this.next();
            const name = this.ident();
            const func = this.funcRest(pos, name);
            return { type: 'funcdecl', pos, name, func };
          }
          break;
        case 'if':
          return this.ifStatement();
        case 'for': {
          this.next();
          const collection = this.expression();
          this.expect('as');
          const names = this.names();
          this.loopDepth++;
          const body = this.block();
          this.loopDepth--;
          return { type: 'for', pos, collection, names, body };
        }
        case 'case':
          return this.caseStatement();
        case 'return': {
          if (this.funcDepth === 0) this.fail('return outside of a function');
          this.next();
          const value = this.is('}') || this.is(';') ? null : this.expression();
          return { type: 'return', pos, value };
        }
        case 'break':
        case 'continue':
          if (this.loopDepth === 0) this.fail(`${t.text} outside of a for loop`);
          this.next();
          return { type: t.text, pos };
      }
    }
    const expr = this.expression();
    if (this.tok.kind === 'op' && ASSIGN_OPS.has(this.tok.text)) {
      const op = this.next();
      if (expr.type !== 'ident' && expr.type !== 'index' && expr.type !== 'selector') this.fail('cannot assign to this expression', expr.pos);
      const value = this.expression();
      return { type: 'assign', pos: op.pos, op: op.text, target: expr, value };
    }
    return { type: 'expr', pos, expr };
  }

  private names(): string[] {
    const names = [this.ident('variable name')];
    if (this.is(',')) {
      this.next();
      names.push(this.ident('variable name'));
    }
    return names;
  }

  private ifStatement(): Stmt {
    const pos = this.expect('if').pos;
    const cond = this.expression();
    const then = this.block();
    let otherwise: Stmt[] | null = null;
    if (this.is('else')) {
      this.next();
      otherwise = this.is('if') ? [this.ifStatement()] : this.block();
    }
    return { type: 'if', pos, cond, then, otherwise };
  }

  private caseStatement(): Stmt {
    const pos = this.expect('case').pos;
    const subject = this.is('{') ? null : this.expression();
    this.expect('{');
    const clauses: Array<{ pos: Pos; values: Expr[] | null; body: Stmt[] }> = [];
    let seenElse = false;
    while (!this.is('}')) {
      const cpos = this.tok.pos;
      let values: Expr[] | null = null;
      if (this.is('when')) {
        this.next();
        values = [this.expression()];
        while (this.is(',')) {
          this.next();
          values.push(this.expression());
        }
      } else if (this.is('else')) {
        if (seenElse) this.fail('case has more than one else clause');
        seenElse = true;
        this.next();
      } else {
        this.fail(`expected 'when' or 'else' in case, found ${this.describe(this.tok)}`);
      }
      this.expect(':');
      const body: Stmt[] = [];
      for (this.semicolons(); !this.is('when') && !this.is('else') && !this.is('}'); this.semicolons()) {
        if (this.tok.kind === 'eof') this.fail("expected '}', found end of file");
        body.push(this.statement(false));
      }
      clauses.push({ pos: cpos, values, body });
    }
    this.next();
    return { type: 'case', pos, subject, clauses };
  }

  private funcRest(pos: Pos, name: string | null): Expr & { type: 'func' } {
    this.expect('(');
    const params: string[] = [];
    while (!this.is(')')) {
      params.push(this.ident('parameter name'));
      if (!this.is(')')) this.expect(',');
    }
    this.next();
    const outerLoops = this.loopDepth;
    this.loopDepth = 0;
    this.funcDepth++;
    const body = this.block();
    this.funcDepth--;
    this.loopDepth = outerLoops;
    return { type: 'func', pos, params, body, name };
  }

  expression(minPrec = 1): Expr {
    let left = this.unary();
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'op' && t.kind !== 'keyword') return left;
      let op = t.text;
      let negate = false;
      let width = 1;
      if (op === 'not' && ['in', 'contains', 'matches'].includes(this.peek().text) && this.peek().kind === 'keyword') {
        op = this.peek().text;
        negate = true;
        width = 2;
      } else if (op === 'is' && this.peek().kind === 'keyword' && this.peek().text === 'not') {
        negate = true;
        width = 2;
      }
      // `return x` then `else:` in a case clause: an else before a colon starts the else clause.
      if (op === 'else' && this.peek().kind === 'op' && this.peek().text === ':') return left;
      const prec = PRECEDENCE[op];
      if (prec === undefined || prec < minPrec) return left;
      this.i += width;
      const right = this.expression(prec + 1);
      if (op === '!=') {
        op = '==';
        negate = true;
      }
      left = { type: 'binary', pos: t.pos, op, negate, left, right };
    }
  }

  /** Whether `t` can begin an operand (so that a quantifier word before it starts a quantifier). */
  private startsOperand(t: Token): boolean {
    if (t.kind === 'ident' || t.kind === 'int' || t.kind === 'float' || t.kind === 'string') return true;
    if (t.kind === 'keyword') return ['true', 'false', 'null', 'undefined', 'func', 'rule', 'all', 'any', 'filter', 'map', 'not'].includes(t.text);
    return t.kind === 'op' && ['(', '[', '{', '-', '+', '!'].includes(t.text);
  }

  private unary(): Expr {
    const t = this.tok;
    if ((t.kind === 'op' && (t.text === '-' || t.text === '+' || t.text === '!')) || (t.kind === 'keyword' && t.text === 'not')) {
      this.next();
      const operand = this.unary();
      return { type: 'unary', pos: t.pos, op: t.text === '!' ? 'not' : (t.text as '-' | '+' | 'not'), operand };
    }
    return this.tests(this.postfix(this.primary()));
  }

  /**
   * The specification's `empty_op` and `defined_op`: `is [not] empty` and `is [not] defined` are
   * unary operators written after their operand, so they bind tighter than any binary operator
   * (`x is defined and x > 1` tests `x` alone). Any other `is` is the binary comparison.
   */
  private tests(expr: Expr): Expr {
    for (;;) {
      if (!this.is('is')) return expr;
      const negate = this.peek().kind === 'keyword' && this.peek().text === 'not';
      const word = this.peek(negate ? 2 : 1);
      if (word.kind !== 'ident' || (word.text !== 'empty' && word.text !== 'defined')) return expr;
      const pos = this.tok.pos;
      this.i += negate ? 3 : 2;
      expr = { type: 'test', pos, test: word.text, negate, operand: expr };
    }
  }

  private postfix(expr: Expr): Expr {
    for (;;) {
      const t = this.tok;
      if (t.kind !== 'op') return expr;
      if (t.nl && (t.text === '(' || t.text === '[')) return expr;
      if (t.text === '.') {
        this.next();
        const name = this.tok;
        // Keywords are fine as attribute names: `var.default`, `x.map`.
        if (name.kind !== 'ident' && name.kind !== 'keyword') this.fail(`expected attribute name after '.', found ${this.describe(name)}`);
        this.next();
        expr = { type: 'selector', pos: name.pos, target: expr, name: name.text };
      } else if (t.text === '[') {
        this.next();
        let low: Expr | null = null;
        if (!this.is(':')) low = this.expression();
        if (this.is(':')) {
          this.next();
          const high = this.is(']') ? null : this.expression();
          this.expect(']');
          expr = { type: 'slice', pos: t.pos, target: expr, low, high };
        } else {
          this.expect(']');
          expr = { type: 'index', pos: t.pos, target: expr, index: low! };
        }
      } else if (t.text === '(') {
        this.next();
        const args: Expr[] = [];
        while (!this.is(')')) {
          args.push(this.expression());
          if (!this.is(')')) this.expect(',');
        }
        this.next();
        expr = { type: 'call', pos: t.pos, callee: expr, args };
      } else {
        return expr;
      }
    }
  }

  private primary(): Expr {
    const t = this.tok;
    const pos = t.pos;
    switch (t.kind) {
      case 'ident':
        this.next();
        return { type: 'ident', pos, name: t.text };
      case 'int': {
        this.next();
        const text = t.text;
        const value = /^0[xX]/.test(text) ? parseInt(text.slice(2), 16) : /^0\d/.test(text) ? parseInt(text, 8) : Number(text);
        if (!Number.isSafeInteger(value)) this.fail(`integer literal ${text} is out of range`, pos);
        return { type: 'literal', pos, value };
      }
      case 'float':
        this.next();
        return { type: 'literal', pos, value: new SFloat(Number(t.text)) };
      case 'string':
        this.next();
        return { type: 'literal', pos, value: t.text };
      case 'eof':
        this.fail('unexpected end of file, expected an expression');
    }
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'true':
        case 'false':
          this.next();
          return { type: 'literal', pos, value: t.text === 'true' };
        case 'null':
          this.next();
          return { type: 'literal', pos, value: null };
        case 'undefined':
          this.next();
          return { type: 'literal', pos, value: undefined };
        case 'func':
          this.next();
          return this.funcRest(pos, null);
        case 'rule': {
          this.next();
          let when: Expr | null = null;
          if (this.is('when')) {
            this.next();
            when = this.expression();
          }
          this.expect('{');
          const body = this.expression();
          this.expect('}');
          return { type: 'rule', pos, when, body };
        }
        case 'all':
        case 'any':
        case 'filter':
        case 'map': {
          // The language's own pages name a variable `map` (`map = {...}`, `map["key"]`): a
          // quantifier word not followed by `COLLECTION as` is read as a name.
          const start = this.i;
          this.next();
          if (!this.startsOperand(this.tok)) return { type: 'ident', pos, name: t.text };
          const collection = this.expression();
          if (!this.is('as')) {
            this.i = start + 1;
            return { type: 'ident', pos, name: t.text };
          }
          this.next();
          const names = this.names();
          this.expect('{');
          const body = this.expression();
          this.expect('}');
          return { type: 'quantifier', pos, kind: t.text, collection, names, body };
        }
      }
    }
    if (t.kind === 'op') {
      if (t.text === '(') {
        this.next();
        const inner = this.expression();
        this.expect(')');
        return inner;
      }
      if (t.text === '[') {
        this.next();
        const items: Expr[] = [];
        while (!this.is(']')) {
          items.push(this.expression());
          if (!this.is(']')) this.expect(',');
        }
        this.next();
        return { type: 'list', pos, items };
      }
      if (t.text === '{') {
        this.next();
        const entries: Array<[Expr, Expr]> = [];
        while (!this.is('}')) {
          const key = this.expression();
          this.expect(':');
          entries.push([key, this.expression()]);
          if (!this.is('}')) this.expect(',');
        }
        this.next();
        return { type: 'map', pos, entries };
      }
    }
    this.fail(`unexpected ${this.describe(t)}, expected an expression`);
  }
}
