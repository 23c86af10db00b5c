// The syntax tree. Every node carries the position of its first token (or, for a binary
// operation, of its operator), which runtime errors report.
import type { Pos } from './errors.ts';

export type Expr =
  | { type: 'literal'; pos: Pos; value: unknown }
  | { type: 'ident'; pos: Pos; name: string }
  | { type: 'list'; pos: Pos; items: Expr[] }
  | { type: 'map'; pos: Pos; entries: Array<[Expr, Expr]> }
  | { type: 'unary'; pos: Pos; op: '-' | '+' | 'not'; operand: Expr }
  /** `x is empty`, `x is not empty`, `x is defined`, `x is not defined`. */
  | { type: 'test'; pos: Pos; test: 'empty' | 'defined'; negate: boolean; operand: Expr }
  | { type: 'binary'; pos: Pos; op: string; negate: boolean; left: Expr; right: Expr }
  | { type: 'selector'; pos: Pos; target: Expr; name: string }
  | { type: 'index'; pos: Pos; target: Expr; index: Expr }
  | { type: 'slice'; pos: Pos; target: Expr; low: Expr | null; high: Expr | null }
  | { type: 'call'; pos: Pos; callee: Expr; args: Expr[] }
  | { type: 'func'; pos: Pos; params: string[]; body: Stmt[]; name: string | null }
  | { type: 'rule'; pos: Pos; when: Expr | null; body: Expr }
  | { type: 'quantifier'; pos: Pos; kind: 'all' | 'any' | 'filter' | 'map'; collection: Expr; names: string[]; body: Expr };

export type Stmt =
  | { type: 'import'; pos: Pos; path: string; alias: string }
  | { type: 'param'; pos: Pos; name: string; fallback: Expr | null }
  | { type: 'funcdecl'; pos: Pos; name: string; func: Expr & { type: 'func' } }
  | { type: 'assign'; pos: Pos; op: string; target: Expr; value: Expr }
  | { type: 'expr'; pos: Pos; expr: Expr }
  | { type: 'if'; pos: Pos; cond: Expr; then: Stmt[]; otherwise: Stmt[] | null }
  | { type: 'for'; pos: Pos; collection: Expr; names: string[]; body: Stmt[] }
  | { type: 'case'; pos: Pos; subject: Expr | null; clauses: Array<{ pos: Pos; values: Expr[] | null; body: Stmt[] }> }
  | { type: 'return'; pos: Pos; value: Expr | null }
  | { type: 'break'; pos: Pos }
  | { type: 'continue'; pos: Pos };

export interface Program {
  file: string;
  body: Stmt[];
}
