// The documented examples are true: every command of the `sh` blocks that hold a `curl`, in the
// README and then in docs/ (api.md first, the other pages by name), runs in that order against a
// live `hangar serve` on each database, with the real curl binary when there is one; one page's
// examples continue from the last page's (the README's quick start makes $TOKEN and `acme`).
// The convention (stated in docs/api.md's "Examples" and docs/contributing.md): the comment
// lines above a curl say `→ STATUS`, optionally `sets NAME from .path` (a response member later
// commands use as $NAME) and `.path is VALUE` (a JSON value the response holds there; $NAME
// expands inside it). Shell forms understood: `NAME=value`, `NAME=$(npx hangar …)`,
// `npx hangar …` and `curl …` with single and double quotes, `$NAME` expansion and
// backslash-newline continuations; anything else fails the test, so nothing in those blocks goes
// unchecked. A curl that cannot run here (another host, a local file) is shown in a `text` block
// on purpose; a curl in a block of any other language (`bash`, `console`, none) would escape the
// test by accident, so that fails it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { dialects, POSTGRES_URL } from './helpers/harness.ts';
import { hangarAsync, scratchServer } from './helpers/process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
/** The pages whose examples run, in order: the README sets up what docs/api.md continues from. */
export function documentedPages(): string[] {
  const rest = readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'api.md')
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'docs/api.md', ...rest];
}
/** The address the examples use; the test's server is elsewhere. */
const DOCS_ORIGIN = 'http://127.0.0.1:8080';
const HAS_CURL = spawnSync('curl', ['--version']).status === 0;

type Segment = { text: string; quote: 'none' | 'single' | 'double' };
interface Command {
  file: string;
  line: number;
  source: string;
  words: Segment[][];
  comments: string[];
}

/** The commands of every `sh` block holding a curl, with the comment lines above each. */
export function documentedCommands(file: string, markdown: string): Command[] {
  const commands: Command[] = [];
  const fence = /^```(\S*)\n([\s\S]*?)^```/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    const block = m[2]!;
    if (!/^\s*curl /m.test(block) || m[1] === 'text') continue;
    const firstLine = markdown.slice(0, m.index).split('\n').length + 1;
    assert.equal(
      m[1],
      'sh',
      `${file}:${firstLine - 1} holds a curl in a \`\`\`${m[1]} block, which this test would not run: make it \`\`\`sh (run) or \`\`\`text (shown only)`,
    );
    commands.push(...tokenize(file, block, firstLine));
  }
  return commands;
}

function tokenize(file: string, block: string, firstLine: number): Command[] {
  const out: Command[] = [];
  let comments: string[] = [];
  let words: Segment[][] = [];
  let word: Segment[] = [];
  let seg: Segment | null = null;
  let line = firstLine;
  let start = line;
  let source = '';
  const endSegment = () => {
    if (seg) word.push(seg);
    seg = null;
  };
  const endWord = () => {
    endSegment();
    if (word.length) words.push(word);
    word = [];
  };
  const endCommand = () => {
    endWord();
    if (words.length) out.push({ file, line: start, source: source.trim(), words, comments });
    if (words.length) comments = [];
    words = [];
    source = '';
  };
  for (let i = 0; i < block.length; i++) {
    const c = block[i]!;
    if (c === '\n') line += 1;
    if (seg?.quote === 'single') {
      if (c === "'") endSegment();
      else seg.text += c;
      source += c;
      continue;
    }
    if (seg?.quote === 'double') {
      if (c === '"') endSegment();
      else if (c === '\\' && /["\\$`]/.test(block[i + 1]!)) seg.text += block[++i];
      else seg.text += c;
      source += c;
      continue;
    }
    if (c === '#' && words.length === 0 && word.length === 0 && !seg) {
      const end = block.indexOf('\n', i);
      comments.push(block.slice(i + 1, end === -1 ? undefined : end).trim());
      i = end === -1 ? block.length : end - 1;
      continue;
    }
    if (words.length === 0 && word.length === 0 && !seg) start = line;
    if (c === '\\' && block[i + 1] === '\n') {
      i += 1;
      line += 1;
      source += ' ';
      continue;
    }
    source += c;
    if (c === '\n') endCommand();
    else if (c === ' ' || c === '\t') endWord();
    else if (c === "'" || c === '"') {
      endSegment();
      seg = { text: '', quote: c === "'" ? 'single' : 'double' };
    } else if (c === '$' && block[i + 1] === '(') {
      // Command substitution: kept whole, for `NAME=$(npx hangar …)` only.
      endSegment();
      const close = block.indexOf(')', i);
      seg = { text: `$(${block.slice(i + 2, close)})`, quote: 'single' };
      source += block.slice(i + 1, close + 1);
      i = close;
      endSegment();
    } else {
      if (!seg) seg = { text: '', quote: 'none' };
      seg.text += c;
    }
  }
  endCommand();
  return out;
}

const expand = (text: string, vars: Map<string, string>) =>
  text.replace(/\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/g, (_m, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    assert.ok(vars.has(name), `$${name} is not set by an earlier example`);
    return vars.get(name)!;
  });

const wordText = (word: Segment[], vars: Map<string, string>) => word.map((s) => (s.quote === 'single' ? s.text : expand(s.text, vars))).join('');

/** The value at a jq-like path (`.data[0].attributes.token`). */
function at(document: unknown, pathText: string): unknown {
  let value: any = document;
  for (const m of pathText.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)) value = value?.[m[1] ?? Number(m[2])];
  return value;
}

interface Expectation {
  status: number;
  sets: [string, string][];
  holds: [string, string][];
}

function expectation(comments: readonly string[]): Expectation | undefined {
  const text = comments.join(' ');
  const status = /→ (\d{3})\b/.exec(text);
  if (!status) return undefined;
  return {
    status: Number(status[1]),
    sets: [...text.matchAll(/sets ([A-Z_][A-Z0-9_]*) from (\.[^\s,]+)/g)].map((m) => [m[1]!, m[2]!]),
    holds: [...text.matchAll(/(?:^|[\s,])(\.[^\s,]+) is ((?:"[^"]*")|[^\s,]+)/g)].map((m) => [m[1]!, m[2]!]),
  };
}

/** curl's answer: its status and body. The real binary when installed, else the flags the examples use, by fetch. */
async function curl(args: string[], scratch: string): Promise<{ status: number; body: string }> {
  if (HAS_CURL) {
    const file = path.join(scratch, 'body');
    rmSync(file, { force: true });
    const r = spawnSync('curl', ['-sS', '-o', file, '-w', '%{http_code}', ...args], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, `curl failed: ${r.stderr}`);
    let body = '';
    try {
      body = readFileSync(file, 'utf8');
    } catch {}
    return { status: Number(r.stdout), body };
  }
  let method: string | undefined;
  let body: string | undefined;
  let url: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-H') {
      const [name, ...rest] = args[++i]!.split(':');
      headers[name!.trim()] = rest.join(':').trim();
    } else if (a === '-d' || a === '--data' || a === '--data-raw') body = args[++i];
    else if (a === '-X') method = args[++i];
    else if (a === '-g' || a === '-s') continue;
    else if (a.startsWith('-')) assert.fail(`the fallback for curl does not know ${a}: install curl`);
    else url = a;
  }
  const res = await fetch(url!, { method: method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  return { status: res.status, body: await res.text() };
}

for (const dialect of dialects()) {
  describe(`the documented examples [${dialect}]`, () => {
    const start = scratchServer(dialect, POSTGRES_URL);
    const scratch = mkdtempSync(path.join(tmpdir(), 'hangar-docs-'));
    after(() => rmSync(scratch, { recursive: true, force: true }));

    it(`answers every curl as its comment says (${HAS_CURL ? 'curl' : 'fetch: no curl installed'})`, { timeout: 180_000 }, async (t) => {
      const { server, env } = await start();
      const commands = documentedPages().flatMap((file) => documentedCommands(file, readFileSync(path.join(ROOT, file), 'utf8')));
      const vars = new Map<string, string>();
      const paths: string[] = [];
      for (const command of commands) {
        await t.test(`${command.file}:${command.line} ${command.source.slice(0, 90)}`, async () => {
          const [first, ...rest] = command.words.map((w) => wordText(w, vars).replaceAll(DOCS_ORIGIN, server.url));
          const assignment = /^([A-Za-z_]\w*)=([\s\S]*)$/.exec(first!);
          if (assignment && rest.length === 0) {
            const substitution = /^\$\(npx hangar (.*)\)$/.exec(assignment[2]!);
            if (substitution) {
              const r = await hangarAsync(substitution[1]!.split(' '), env);
              assert.equal(r.status, 0, r.stderr);
              vars.set(assignment[1]!, r.stdout.trim().split('\n').at(-1)!);
            } else {
              assert.ok(!assignment[2]!.startsWith('$('), `only $(npx hangar …) is understood: ${command.source}`);
              vars.set(assignment[1]!, assignment[2]!);
            }
            return;
          }
          if (first === 'npx' && rest[0] === 'hangar') {
            const r = await hangarAsync(rest.slice(1), env);
            assert.equal(r.status, 0, r.stderr);
            return;
          }
          assert.equal(first, 'curl', `not a command this test can check: ${command.source}`);
          const expected = expectation(command.comments);
          assert.ok(expected, `no "→ STATUS" comment above: ${command.source}`);
          const res = await curl(rest, scratch);
          assert.equal(res.status, expected.status, res.body);
          paths.push(new URL(rest.find((a) => a.startsWith(server.url))!).pathname);
          const document = res.body ? JSON.parse(res.body) : undefined;
          for (const [name, where] of expected.sets) {
            const value = at(document, where);
            assert.equal(typeof value, 'string', `${where} is not a string in ${res.body}`);
            vars.set(name, value as string);
          }
          for (const [where, value] of expected.holds) assert.deepEqual(at(document, where), JSON.parse(expand(value, vars)), `${where} in ${res.body}`);
        });
      }
      // Every area the docs promise an example of has one.
      const covered = (re: RegExp) =>
        assert.ok(
          paths.some((p) => re.test(p)),
          `no example requests ${re}`,
        );
      covered(/^\/api\/v2\/organizations\/[^/]+\/projects$/);
      covered(/^\/api\/v2\/projects\/[^/]+\/relationships\/workspaces$/);
      covered(/^\/api\/v2\/teams\/[^/]+\/relationships\/users$/);
      covered(/^\/api\/v2\/team-projects/);
      covered(/^\/api\/v2\/policy-sets\/[^/]+\/parameters\/[^/]+$/);
      covered(/^\/api\/v2\/organizations\/[^/]+\/agent-pools$/);
      covered(/^\/api\/v2\/agent-pools\/[^/]+\/authentication-tokens$/);
      covered(/^\/api\/agent\/register$/);
      covered(/^\/api\/agent\/status$/);
      covered(/^\/api\/v2\/users\/[^/]+\/authentication-tokens$/);
      covered(/^\/api\/v2\/organizations\/[^/]+\/authentication-token$/);
      covered(/^\/api\/v2\/teams\/[^/]+\/authentication-token$/);
      covered(/^\/api\/v2\/team-workspaces$/);
      covered(/^\/api\/v2\/workspaces\/[^/]+\/configuration-versions$/);
      covered(/^\/_archivist\/v1\/object\/[^/]+$/);
      covered(/^\/api\/v2\/runs$/);
      covered(/^\/api\/v2\/runs\/[^/]+\/actions\/discard$/);
      assert.ok(paths.length >= 25, `only ${paths.length} curl examples ran`);
    });
  });
}
