// Sentinel's lexical elements: identifiers, keywords, int/float/string literals, operators and
// three comment forms (#, //, /* */). Newlines carry no meaning: the grammar never needs them
// (an explicit `;` between statements is read and skipped).
import { SentinelError, type Pos } from './errors.ts';

export type TokenKind = 'ident' | 'keyword' | 'int' | 'float' | 'string' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The keyword or operator text, the identifier's name, or the literal's decoded value. */
  text: string;
  pos: Pos;
  /** A newline comes before this token: `(` and `[` there start something new, not a call or an index. */
  nl: boolean;
}

export const KEYWORDS = new Set([
  'import',
  'as',
  'param',
  'default',
  'func',
  'return',
  'rule',
  'when',
  'if',
  'else',
  'for',
  'case',
  'break',
  'continue',
  'all',
  'any',
  'filter',
  'map',
  'true',
  'false',
  'null',
  'undefined',
  'and',
  'or',
  'xor',
  'not',
  'is',
  'in',
  'contains',
  'matches',
]);

const OPERATORS = [
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '==',
  '!=',
  '<=',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '<',
  '>',
  '!',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  ';',
  '.',
];

const isLetter = (c: string) => /[\p{L}_]/u.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

// The specification's single-character escapes; `\'` is not one of them (an error, as in Go).
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v' };

export function tokenize(source: string, file: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let sawNewline = false;
  const pos = (at: number): Pos => ({ file, line, column: at - lineStart + 1 });
  const fail = (at: number, message: string): never => {
    throw new SentinelError(message, pos(at));
  };

  while (i < source.length) {
    const c = source[i]!;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      sawNewline = true;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\uFEFF') {
      i++;
      continue;
    }
    if (c === '#' || (c === '/' && source[i + 1] === '/')) {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const start = i;
      const end = source.indexOf('*/', i + 2);
      if (end < 0) fail(start, 'comment not terminated');
      for (; i < end + 2; i++) {
        if (source[i] === '\n') {
          line++;
          lineStart = i + 1;
          sawNewline = true;
        }
      }
      continue;
    }
    const start = i;
    const nl = sawNewline;
    sawNewline = false;
    if (isLetter(c)) {
      while (i < source.length && (isLetter(source[i]!) || isDigit(source[i]!) || /\p{N}/u.test(source[i]!))) i++;
      const word = source.slice(start, i);
      tokens.push({ kind: KEYWORDS.has(word) ? 'keyword' : 'ident', text: word, pos: pos(start), nl });
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(source[i + 1] ?? ''))) {
      tokens.push({ ...number(source, start, pos(start), (message) => fail(start, message)), nl });
      i = start + tokens[tokens.length - 1]!.text.length;
      // number() returns the literal's source text; the decoded value is computed by the parser.
      continue;
    }
    if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        const ch = source[i];
        if (ch === undefined || ch === '\n') fail(start, 'string literal not terminated');
        if (ch === '"') break;
        if (ch === '\\') {
          const e = source[i + 1] ?? '';
          if (e in ESCAPES) {
            value += ESCAPES[e];
            i += 2;
          } else if (e === 'x' || e === 'u' || e === 'U') {
            const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
            const hex = source.slice(i + 2, i + 2 + width);
            if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) fail(i, `invalid escape sequence \\${e}${hex}`);
            const cp = parseInt(hex, 16);
            // The specification: a surrogate half (\uD800) or a value past U+10FFFF (\U00110000)
            // is not a character, and the literal is illegal.
            if (e !== 'x' && ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)) fail(i, `escape sequence \\${e}${hex} is not a valid Unicode code point`);
            value += String.fromCodePoint(cp);
            i += 2 + width;
          } else if (/[0-7]/.test(e)) {
            const oct = source.slice(i + 1, i + 4);
            if (!/^[0-7]{3}$/.test(oct)) fail(i, `invalid escape sequence \\${oct}`);
            // A byte: \377 is the largest.
            if (parseInt(oct, 8) > 0xff) fail(i, `octal escape sequence \\${oct} is larger than a byte`);
            value += String.fromCharCode(parseInt(oct, 8));
            i += 4;
          } else {
            fail(i, `unknown escape sequence \\${e}`);
          }
          continue;
        }
        value += ch;
        i++;
      }
      i++;
      tokens.push({ kind: 'string', text: value, pos: pos(start), nl });
      continue;
    }
    if (c === '`') {
      const end = source.indexOf('`', i + 1);
      if (end < 0) fail(start, 'raw string literal not terminated');
      const value = source.slice(i + 1, end);
      const p = pos(start);
      for (; i <= end; i++) {
        if (source[i] === '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      tokens.push({ kind: 'string', text: value.replace(/\r/g, ''), pos: p, nl });
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (!op) fail(start, `unexpected character ${JSON.stringify(c)}`);
    tokens.push({ kind: 'op', text: op!, pos: pos(start), nl });
    i += op!.length;
  }
  tokens.push({ kind: 'eof', text: '', pos: pos(i), nl: true });
  return tokens;
}

function number(source: string, start: number, p: Pos, fail: (message: string) => never): Omit<Token, 'nl'> {
  const rest = source.slice(start);
  const hex = /^0[xX][0-9a-fA-F]+/.exec(rest);
  if (hex) return { kind: 'int', text: hex[0], pos: p };
  const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest)!;
  const text = m[0];
  const isFloat = /[.eE]/.test(text);
  if (!isFloat && /^0\d/.test(text) && /[89]/.test(text)) fail(`invalid octal literal ${text}`);
  if (/^[\p{L}_]/u.test(rest.slice(text.length))) fail(`invalid number literal ${text}${rest[text.length]}`);
  return { kind: isFloat ? 'float' : 'int', text, pos: p };
}
