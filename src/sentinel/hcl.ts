// A reader for the part of HCL2's native syntax that Sentinel configuration and test files use:
// attributes (`name = value`), blocks with labels (`mock "tfplan/v2" { ... }`), and literal
// values: strings (with escapes; `${` interpolation is not supported and is an error), numbers,
// bools, null, tuples `[...]` and objects `{ k = v, "k": v }`, plus `<<EOF` heredocs.
// Comments: #, //, /* */.
import { SentinelError, type Pos } from './errors.ts';

export type HclValue = null | boolean | number | string | HclValue[] | { [key: string]: HclValue };

export interface HclBlock {
  type: string;
  labels: string[];
  body: HclBody;
  pos: Pos;
}

export interface HclBody {
  attributes: Map<string, { value: HclValue; pos: Pos }>;
  blocks: HclBlock[];
}

/** Sets an own property, even one named `__proto__`: keys in test files are data, never prototypes. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function parseHcl(text: string, file: string): HclBody {
  const p = new HclParser(text, file);
  const body = p.body(true);
  return body;
}

class HclParser {
  private i = 0;
  private line = 1;
  private lineStart = 0;
  private readonly s: string;
  private readonly file: string;
  constructor(s: string, file: string) {
    this.s = s;
    this.file = file;
  }

  private pos(): Pos {
    return { file: this.file, line: this.line, column: this.i - this.lineStart + 1 };
  }
  private fail(message: string, pos = this.pos()): never {
    throw new SentinelError(message, pos);
  }
  private advance(n = 1): void {
    for (let k = 0; k < n; k++) {
      if (this.s[this.i] === '\n') {
        this.line++;
        this.lineStart = this.i + 1;
      }
      this.i++;
    }
  }

  /** Skips blanks and comments; newlines too unless `stopAtNewline`. Returns whether one was crossed. */
  private skip(stopAtNewline = false): boolean {
    let crossed = false;
    for (;;) {
      const c = this.s[this.i];
      if (c === '\n') {
        crossed = true;
        if (stopAtNewline) return true;
        this.advance();
      } else if (c === ' ' || c === '\t' || c === '\r' || c === '\uFEFF') this.advance();
      else if (c === '#' || (c === '/' && this.s[this.i + 1] === '/')) {
        while (this.i < this.s.length && this.s[this.i] !== '\n') this.advance();
      } else if (c === '/' && this.s[this.i + 1] === '*') {
        const end = this.s.indexOf('*/', this.i + 2);
        if (end < 0) this.fail('comment not terminated');
        this.advance(end + 2 - this.i);
      } else return crossed;
    }
  }

  private identifier(): string | null {
    const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(this.s.slice(this.i, this.i + 256));
    if (!m) return null;
    this.advance(m[0].length);
    return m[0];
  }

  body(top: boolean): HclBody {
    const body: HclBody = { attributes: new Map(), blocks: [] };
    for (;;) {
      this.skip();
      if (this.i >= this.s.length) {
        if (!top) this.fail("expected '}', found end of file");
        return body;
      }
      if (this.s[this.i] === '}') {
        if (top) this.fail("unexpected '}'");
        this.advance();
        return body;
      }
      const pos = this.pos();
      const name = this.identifier();
      if (!name) this.fail(`expected an attribute or block name, found ${JSON.stringify(this.s[this.i])}`);
      this.skip(true);
      if (this.s[this.i] === '=' && this.s[this.i + 1] !== '=') {
        this.advance();
        this.skip();
        if (body.attributes.has(name!)) this.fail(`attribute ${name} is set twice`, pos);
        body.attributes.set(name!, { value: this.value(), pos });
        const crossed = this.skip(true);
        if (!crossed && this.i < this.s.length && this.s[this.i] !== '}') this.fail('expected a newline after the attribute value');
        continue;
      }
      const labels: string[] = [];
      for (;;) {
        this.skip(true);
        const c = this.s[this.i];
        if (c === '"') labels.push(this.string());
        else if (c === '{') break;
        else {
          const label = this.identifier();
          if (label === null) this.fail(`expected '=', a block label or '{' after ${name}`);
          labels.push(label!);
        }
      }
      this.advance();
      body.blocks.push({ type: name!, labels, body: this.body(false), pos });
    }
  }

  private string(): string {
    const start = this.pos();
    this.advance();
    let out = '';
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined || c === '\n') this.fail('string not terminated', start);
      if (c === '"') {
        this.advance();
        return out;
      }
      if (c === '\\') {
        const e = this.s[this.i + 1];
        const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          this.advance(2);
        } else if (e === 'u' || e === 'U') {
          const width = e === 'u' ? 4 : 8;
          const hex = this.s.slice(this.i + 2, this.i + 2 + width);
          if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== width) this.fail('invalid unicode escape');
          out += String.fromCodePoint(parseInt(hex, 16));
          this.advance(2 + width);
        } else this.fail(`unknown escape sequence \\${e}`);
        continue;
      }
      if ((c === '$' || c === '%') && this.s[this.i + 1] === '{') {
        if (this.s[this.i + 2] === c) this.fail('template sequences are not supported');
        this.fail('template interpolation is not supported in Sentinel test files');
      }
      if ((c === '$' || c === '%') && this.s[this.i + 1] === c && this.s[this.i + 2] === '{') {
        out += `${c}{`;
        this.advance(3);
        continue;
      }
      out += c;
      this.advance();
    }
  }

  private heredoc(): string {
    const m = /^<<(-?)([A-Za-z_][A-Za-z0-9_]*)\r?\n/.exec(this.s.slice(this.i, this.i + 300));
    if (!m) this.fail('malformed heredoc');
    this.advance(m![0].length);
    const lines: string[] = [];
    for (;;) {
      if (this.i >= this.s.length) this.fail(`heredoc not terminated: expected ${m![2]}`);
      const end = this.s.indexOf('\n', this.i);
      const line = this.s.slice(this.i, end < 0 ? this.s.length : end).replace(/\r$/, '');
      if (line.trim() === m![2]) {
        this.advance(line.length);
        break;
      }
      lines.push(line);
      this.advance(line.length + (end < 0 ? 0 : 1));
    }
    if (m![1] === '-') {
      const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length));
      return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n') + (lines.length ? '\n' : '');
    }
    return lines.join('\n') + (lines.length ? '\n' : '');
  }

  value(): HclValue {
    const c = this.s[this.i];
    const pos = this.pos();
    if (c === '"') return this.string();
    if (c === '<' && this.s[this.i + 1] === '<') return this.heredoc();
    if (c === '[') {
      this.advance();
      const items: HclValue[] = [];
      for (;;) {
        this.skip();
        if (this.s[this.i] === ']') {
          this.advance();
          return items;
        }
        items.push(this.value());
        this.skip();
        if (this.s[this.i] === ',') this.advance();
        else if (this.s[this.i] !== ']') this.fail("expected ',' or ']' in list");
      }
    }
    if (c === '{') {
      this.advance();
      const obj: { [key: string]: HclValue } = {};
      for (;;) {
        this.skip();
        if (this.s[this.i] === '}') {
          this.advance();
          return obj;
        }
        const kpos = this.pos();
        let key: string;
        if (this.s[this.i] === '"') key = this.string();
        else {
          const id = this.identifier();
          if (id === null) this.fail('expected an object key');
          key = id!;
        }
        this.skip();
        if (this.s[this.i] !== '=' && this.s[this.i] !== ':') this.fail(`expected '=' or ':' after key ${key}`);
        this.advance();
        this.skip();
        if (Object.hasOwn(obj, key)) this.fail(`duplicate key ${key}`, kpos);
        setOwn(obj, key, this.value());
        const crossed = this.skip(true);
        if (this.s[this.i] === ',') this.advance();
        else if (!crossed && this.s[this.i] !== '}') {
          this.skip();
          if (this.s[this.i] !== '}') this.fail("expected ',', a newline or '}' in object");
        }
      }
    }
    const num = /^-?(\d+(\.\d+)?([eE][+-]?\d+)?)/.exec(this.s.slice(this.i, this.i + 64));
    if (num) {
      this.advance(num[0].length);
      return Number(num[0]);
    }
    const word = this.identifier();
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    return this.fail(word ? `unsupported expression ${word} (only literal values are supported)` : `unexpected ${JSON.stringify(c ?? 'end of file')}`, pos);
  }
}
