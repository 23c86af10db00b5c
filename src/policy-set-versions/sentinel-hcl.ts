// A small reader for the configuration file of a policy set version, `sentinel.hcl`: blocks with
// labels (`policy "name" { ... }`), attributes (`source = "./x.sentinel"`) and literal values
// (strings, numbers, booleans, null, lists and objects). Enough to learn which policies, modules
// and parameters a set declares; expressions, function calls and heredocs are refused with a
// message naming the line, as anything this reader does not know is.
export type HclValue = string | number | boolean | null | HclValue[] | { [key: string]: HclValue };

export interface HclBlock {
  type: string;
  labels: string[];
  body: HclBody;
  line: number;
}

export interface HclBody {
  attributes: Map<string, { value: HclValue; line: number }>;
  blocks: HclBlock[];
}

export class HclError extends Error {}

type Token =
  | { kind: 'ident'; text: string; line: number }
  | { kind: 'string'; text: string; line: number }
  | { kind: 'number'; value: number; line: number }
  | { kind: 'punct'; text: string; line: number }
  | { kind: 'newline'; line: number }
  | { kind: 'eof'; line: number };

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const fail = (what: string): never => {
    throw new HclError(`line ${line}: ${what}`);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      tokens.push({ kind: 'newline', line });
      line += 1;
      i += 1;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i += 1;
    } else if (c === '#' || (c === '/' && text[i + 1] === '/')) {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) fail('unterminated comment');
      for (let j = i; j < end; j++) if (text[j] === '\n') line += 1;
      i = end + 2;
    } else if (c === '"') {
      let out = '';
      i += 1;
      for (;;) {
        const d = text[i];
        if (d === undefined || d === '\n') fail('unterminated string');
        if (d === '"') break;
        if (d === '\\') {
          const e = text[i + 1]!;
          if (e === 'u') {
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9A-Fa-f]{4}$/.test(hex)) fail('bad \\u escape');
            out += String.fromCharCode(parseInt(hex, 16));
            i += 6;
            continue;
          }
          if (!(e in ESCAPES)) fail(`unknown escape \\${e}`);
          out += ESCAPES[e];
          i += 2;
          continue;
        }
        if (d === '$' && text[i + 1] === '{') fail('template expressions are not supported');
        out += d;
        i += 1;
      }
      i += 1;
      tokens.push({ kind: 'string', text: out, line });
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i, i + 256))!;
      tokens.push({ kind: 'ident', text: m[0], line });
      i += m[0].length;
    } else if (/[0-9-]/.test(c)) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
      if (!m) fail(`unexpected ${JSON.stringify(c)}`);
      tokens.push({ kind: 'number', value: Number(m![0]), line });
      i += m![0].length;
    } else if ('{}[]=,:'.includes(c)) {
      tokens.push({ kind: 'punct', text: c, line });
      i += 1;
    } else if (c === '<' && text[i + 1] === '<') {
      fail('heredoc strings are not supported');
    } else {
      fail(`unexpected ${JSON.stringify(c)} (only literal values are supported)`);
    }
  }
  tokens.push({ kind: 'eof', line });
  return tokens;
}

/** Nesting of blocks, lists and objects is bounded, so no input can exhaust the stack. */
const MAX_DEPTH = 32;

export function parseHcl(text: string): HclBody {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos]!;
  const next = () => tokens[pos++]!;
  const fail = (t: Token, what: string): never => {
    throw new HclError(`line ${t.line}: ${what}`);
  };
  const skipNewlines = () => {
    while (peek().kind === 'newline') pos += 1;
  };
  const isPunct = (t: Token, text: string) => t.kind === 'punct' && t.text === text;
  const expectPunct = (text: string) => {
    const t = next();
    if (!isPunct(t, text)) fail(t, `expected "${text}"`);
  };

  function value(depth: number): HclValue {
    if (depth > MAX_DEPTH) fail(peek(), 'nested too deeply');
    const t = next();
    if (t.kind === 'string') return t.text;
    if (t.kind === 'number') return t.value;
    if (t.kind === 'ident') {
      if (t.text === 'true') return true;
      if (t.text === 'false') return false;
      if (t.text === 'null') return null;
      return fail(t, `expressions are not supported (${t.text})`);
    }
    if (isPunct(t, '[')) {
      const items: HclValue[] = [];
      for (;;) {
        skipNewlines();
        if (isPunct(peek(), ']')) break;
        items.push(value(depth + 1));
        skipNewlines();
        if (isPunct(peek(), ',')) next();
        else if (!isPunct(peek(), ']')) fail(peek(), 'expected "," or "]"');
      }
      next();
      return items;
    }
    if (isPunct(t, '{')) {
      const object: Record<string, HclValue> = {};
      for (;;) {
        skipNewlines();
        if (isPunct(peek(), '}')) break;
        const key = next();
        if (key.kind !== 'ident' && key.kind !== 'string') fail(key, 'expected an object key');
        const sep = next();
        if (!isPunct(sep, '=') && !isPunct(sep, ':')) fail(sep, 'expected "=" or ":"');
        object[(key as { text: string }).text] = value(depth + 1);
        skipNewlines();
        if (isPunct(peek(), ',')) next();
      }
      next();
      return object;
    }
    return fail(t, 'expected a value');
  }

  function body(depth: number, closing: boolean): HclBody {
    if (depth > MAX_DEPTH) fail(peek(), 'nested too deeply');
    const out: HclBody = { attributes: new Map(), blocks: [] };
    for (;;) {
      skipNewlines();
      const t = peek();
      if (closing && isPunct(t, '}')) {
        next();
        return out;
      }
      if (t.kind === 'eof') {
        if (closing) fail(t, 'expected "}"');
        return out;
      }
      if (t.kind !== 'ident') fail(t, 'expected an attribute or a block');
      const name = (next() as { text: string }).text;
      if (isPunct(peek(), '=')) {
        next();
        if (out.attributes.has(name)) fail(t, `attribute "${name}" is set twice`);
        out.attributes.set(name, { value: value(depth + 1), line: t.line });
      } else {
        const labels: string[] = [];
        while (peek().kind === 'string' || peek().kind === 'ident') labels.push((next() as { text: string }).text);
        expectPunct('{');
        out.blocks.push({ type: name, labels, body: body(depth + 1, true), line: t.line });
      }
      const end = peek();
      if (end.kind !== 'newline' && end.kind !== 'eof' && !(closing && isPunct(end, '}'))) fail(end, 'expected a new line');
    }
  }

  return body(0, false);
}
