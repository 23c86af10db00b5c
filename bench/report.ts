// Turns one engine's figures into rows with their goals, and writes bench/results/: latest.json
// (both engines' last runs), latest.md (one section per engine, plus the goals at a glance) and
// scale.svg. A run on one engine keeps the other engine's last figures, dated.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scaleChart, type ScalePanel } from './chart.ts';

export type Engine = 'sqlite' | 'postgres';
export const ENGINE_LABEL: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** The issues whose goals the bench checks; the summary has a table for each. */
export type Issue = 12 | 32;

/** A goal of an issue, checked against one figure of one row. */
export interface Goal {
  /** The issue that set it. */
  issue: Issue;
  /** Stable name, so both engines' marks meet in one line of the summary. */
  key: string;
  /** What the summary calls it. */
  title: string;
  /** The condition, as the row's goal column shows it. */
  text: string;
  value: number;
  ok: boolean;
}

export interface Row {
  section: string;
  label: string;
  caller?: string;
  cpuUs?: number;
  dbCpuUs?: number;
  rps?: number;
  p50?: number;
  p99?: number;
  /** The row the ratios divide by (its label), measured in the same rounds. */
  vs?: string;
  cpuX?: number;
  rpsX?: number;
  p50X?: number;
  /** A figure that is not a load run (a time, a count, memory), as shown. */
  value?: string;
  goals: Goal[];
  note?: string;
  /** Each round's figures, for latest.json: how far the rounds spread. */
  rounds?: { cpuUs: number[]; rps: number[]; p50: number[] };
}

export interface EngineResult {
  machine: { cpus: number; node: string; quick: boolean; seconds: number; rounds: number; passes: number; date: string; minutes: number };
  rows: Row[];
  scale: ScalePanel['series'];
}

const RESULTS = path.resolve(import.meta.dirname, 'results');

export function writeResults(engine: Engine, result: EngineResult): string {
  const file = path.join(RESULTS, 'latest.json');
  let all: Partial<Record<Engine, EngineResult>> = {};
  if (existsSync(file)) {
    try {
      const previous = JSON.parse(readFileSync(file, 'utf8'));
      // Older files held one run of another shape: start afresh from those.
      for (const e of ['sqlite', 'postgres'] as const) if (previous?.engines?.[e]?.rows) all[e] = previous.engines[e];
    } catch {
      all = {};
    }
  }
  all[engine] = result;
  const engines = (['sqlite', 'postgres'] as const).filter((e) => all[e]);
  const markdown = renderMarkdown(engines.map((e) => [e, all[e]!]));
  writeFileSync(file, toJson(all));
  writeFileSync(path.join(RESULTS, 'latest.md'), markdown);
  const cpuLabel = (e: Engine) => (e === 'postgres' ? 'server + PostgreSQL CPU µs / request (solid)' : 'server CPU µs / request (solid)');
  writeFileSync(path.join(RESULTS, 'scale.svg'), scaleChart(engines.map((e) => ({ title: ENGINE_LABEL[e], cpuLabel: cpuLabel(e), series: all[e]!.scale }))));
  return markdown;
}

/** One line per row, so that a new run's diff reads row by row. */
function toJson(all: Partial<Record<Engine, EngineResult>>): string {
  // Two decimals are more than any figure here can claim.
  const compact = (v: unknown) => JSON.stringify(v, (_key, x) => (typeof x === 'number' ? Math.round(x * 100) / 100 : x));
  const engines = Object.entries(all).map(
    ([e, r]) =>
      `    ${JSON.stringify(e)}: {\n      "machine": ${compact(r.machine)},\n      "scale": ${compact(r.scale)},\n      "rows": [\n` +
      r.rows.map((row) => `        ${compact(row)}`).join(',\n') +
      '\n      ]\n    }',
  );
  return `{\n  "engines": {\n${engines.join(',\n')}\n  }\n}\n`;
}

const num = (v: number | undefined, digits = 0) =>
  v === undefined || !Number.isFinite(v) ? '' : v.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ms = (v: number | undefined) => (v === undefined ? '' : v < 10 ? num(v, 2) : num(v, 1));
const times = (v: number | undefined) => (v === undefined ? '' : `${num(v, 2)}×`);
const mark = (ok: boolean) => (ok ? '✓' : '✗');

function renderMarkdown(engines: Array<[Engine, EngineResult]>): string {
  const lines = ['# Hangar benchmark'];
  // The goals at a glance: a table per issue, one line per goal, one column per engine. (A
  // results file from before goals named their issue holds issue 12's.)
  const titles = new Map<string, { title: string; issue: Issue }>();
  for (const [, r] of engines)
    for (const row of r.rows)
      for (const g of row.goals) {
        // A goal that names its issue is of this bench: its title wins over an older file's.
        if (!titles.has(g.key) || g.issue !== undefined) titles.set(g.key, { title: g.title, issue: g.issue ?? 12 });
      }
  for (const issue of [12, 32] as const) {
    const mine = [...titles].filter(([, t]) => t.issue === issue);
    if (mine.length === 0) continue;
    lines.push('', `## Goals (issue ${issue})`, '');
    lines.push(`| goal | ${engines.map(([e]) => ENGINE_LABEL[e]).join(' | ')} |`, `|---|${engines.map(() => ':-:').join('|')}|`);
    for (const [key, { title }] of mine) {
      const cells = engines.map(([, r]) => {
        const g = r.rows.flatMap((row) => row.goals).find((x) => x.key === key);
        return g ? `${num(g.value, 2)} ${mark(g.ok)}` : '—';
      });
      lines.push(`| ${title} | ${cells.join(' | ')} |`);
    }
  }
  for (const [engine, r] of engines) {
    const m = r.machine;
    lines.push(
      '',
      `## ${ENGINE_LABEL[engine]}`,
      '',
      `${m.cpus} CPUs, Node ${m.node}, ${m.quick ? 'quick run, ' : ''}${m.rounds} rounds of about ${m.seconds} s per scenario` +
        `${m.passes > 1 ? ` (in ${m.passes} interleaved passes)` : ''}, ${m.date}, ${m.minutes} min in all.`,
    );
    const db = engine === 'postgres';
    // [heading, right-aligned]
    const columns: Array<[string, boolean]> = [
      ['scenario', false],
      ['caller', false],
      ['CPU µs/req', true],
      ...(db ? [['PostgreSQL CPU µs/req', true] as [string, boolean]] : []),
      ['req/s', true],
      ['p50 ms', true],
      ['p99 ms', true],
      ['vs', false],
      ['CPU ×', true],
      ['req/s ×', true],
      ['p50 ×', true],
      ['goal', false],
    ];
    const simpleColumns: Array<[string, boolean]> = [
      ['figure', false],
      ['caller', false],
      ['value', true],
      ['vs', false],
      ['time ×', true],
      ['CPU ×', true],
      ['goal', false],
    ];
    let section = '';
    for (const row of r.rows) {
      // Figures that are not load runs (times, counts, memory) get a table of their own shape.
      const simple = row.value !== undefined;
      if (row.section !== section) {
        section = row.section;
        const cols = simple ? simpleColumns : columns;
        lines.push('', `**${section}**`, '', `| ${cols.map(([h]) => h).join(' | ')} |`, `|${cols.map(([, right]) => (right ? '---:' : '---')).join('|')}|`);
      }
      const remarks = [row.goals.map((g) => `${g.text} ${mark(g.ok)}`).join('; '), row.note].filter(Boolean).join('; ');
      const cells = simple
        ? [row.label, row.caller ?? '', row.value!, row.vs ?? '', times(row.p50X), times(row.cpuX), remarks]
        : [
            row.label,
            row.caller ?? '',
            num(row.cpuUs),
            ...(db ? [num(row.dbCpuUs)] : []),
            num(row.rps),
            ms(row.p50),
            ms(row.p99),
            row.vs ?? '',
            times(row.cpuX),
            times(row.rpsX),
            times(row.p50X),
            remarks,
          ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  lines.push(
    '',
    '## How to read this',
    '',
    "- **CPU µs/req** is the primary figure: the server process's user + system CPU time (all threads,",
    '  from `/proc/<pid>/task/*/schedstat`) from the first request of a run until the server is idle after',
    '  the last, divided by the requests, all of which are answered. It holds steady on a shared machine',
    '  where req/s does not. The bare Fastify baseline is measured the same way.',
    "- **PostgreSQL CPU µs/req** is the database backends' CPU time serving the server's connections. On",
    '  PostgreSQL every `CPU ×` ratio (and the chart) uses server + database CPU, so work moved into a query',
    '  does not look free.',
    '- Every scenario runs in the same round as its reference (the `vs` column), alternating with it in',
    '  short runs (five passes a round in a full run), three rounds; each figure is the median of the rounds,',
    '  and each ratio the median of the per-round ratios (so a ratio need not equal the quotient of the two',
    "  medians shown). Each round's figures are in latest.json.",
    "- `CPU ×`, `req/s ×` and `p50 ×` divide the row's figure by its reference's.",
    '- Goals: "≤ N×" on a list at a larger size or with `q=` compares **CPU per request** with the same',
    "  caller's list at 100 projects (p50 shown beside it); a list page of 20 (issue 32) compares CPU per",
    '  request with a bare route answering the same body (SQLite) and req/s (PostgreSQL), as a show does;',
    '  the heartbeat\'s "≥ 0.8× a same-shape POST" is requests per CPU-second, i.e. its CPU ≤ 1.25× the bare',
    "  POST's. On PostgreSQL round trips per request are counted on a second, unloaded server. A row with",
    '  errors or non-2xx answers fails its goals.',
    '- Callers: the owner created the organizations (owners team); "member, team grant" is on a team with no',
    '  organization access and `read` on the shown project and on 25 projects of each large organization;',
    '  "member, read-projects" is on a team with that organization permission.',
  );
  return lines.join('\n') + '\n';
}

/** A goal with a fixed bound on a value (issue 12's unless another is named). */
export function goal(key: string, title: string, value: number | undefined, op: '<=' | '>=', bound: number, text: string, issue: Issue = 12): Goal {
  const v = value ?? NaN;
  return { issue, key, title, text, value: v, ok: op === '<=' ? v <= bound : v >= bound };
}
