// `npm run bench:sentinel [-- [--write] [--check] [CORPUS_DIR]]`: what the Sentinel runtime costs.
//   1. One policy walking every resource change of a synthetic plan of 10,000 changes
//      (goal: ≤ 200 ms for the evaluation; converting the plan's JSON into Sentinel values is
//      reported apart, since a check builds it once per run). Also, for information, the same
//      policy the way a policy check runs it: in the sandbox's child process, plan JSON in.
//   2. The corpus of test cases (default ../shared/sentinel/terraform-sentinel-policies): cases per
//      second for a whole `sentinel test` pass (files parsed once and reused, as the runner does),
//      and the median parse + evaluate time of one case with nothing reused (goal: ≤ 50 ms).
// Prints a goals table. `--write` records it in bench/results/sentinel.md (and .json);
// `--check` is the short run CI makes: fewer rounds, and exit 1 only when a goal is missed by
// more than 2× (a loaded machine misses by a little; a regression misses by a lot).
import { existsSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { evaluatePolicy } from '../src/sentinel/index.ts';
import { evaluateInSandbox } from '../src/sentinel/sandbox.ts';
import { findTestCases, runTestCase } from '../src/sentinel/testing.ts';
import { tfplanFromJson } from '../src/sentinel/tfplan.ts';

const args = process.argv.slice(2);
const CHECK = args.includes('--check');
const WRITE = args.includes('--write');
const ROUNDS = CHECK ? 3 : 7;
const CASE_ROUNDS = CHECK ? 1 : 3;
const CHANGES = 10_000;
const WALK_GOAL_MS = 200;
const CASE_GOAL_MS = 50;

interface Figures {
  walkMs: number;
  walkCpuMs: number;
  convertMs: number;
  sandboxMs: number | null;
  corpus: { cases: number; passed: number; casesPerSecond: number; medianMs: number; slowestMs: number } | null;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

function syntheticPlan(n: number) {
  const types = ['aws_instance', 'aws_s3_bucket', 'aws_security_group', 'aws_db_instance'];
  const actions = [['create'], ['update'], ['no-op'], ['delete', 'create'], ['delete']];
  return {
    terraform_version: '1.9.5',
    resource_changes: Array.from({ length: n }, (_, i) => {
      const type = types[i % types.length]!;
      return {
        address: `module.m${i % 50}.${type}.r${i}`,
        module_address: `module.m${i % 50}`,
        mode: 'managed',
        type,
        name: `r${i}`,
        provider_name: 'registry.terraform.io/hashicorp/aws',
        change: {
          actions: actions[i % actions.length],
          before: null,
          after: {
            instance_type: i % 97 === 0 ? 'm5.24xlarge' : 't3.micro',
            tags: i % 89 === 0 ? { Name: `r${i}` } : { Name: `r${i}`, owner: 'team-a', env: 'prod' },
            ingress: [{ cidr_blocks: i % 83 === 0 ? ['0.0.0.0/0'] : ['10.0.0.0/8'], from_port: 22 }],
          },
        },
      };
    }),
  };
}

const WALK_POLICY = `
import "tfplan/v2" as tfplan
import "strings"

param allowed_types default ["t3.micro", "t3.small"]

changing = filter tfplan.resource_changes as address, rc {
  rc.mode is "managed" and
  (rc.change.actions contains "create" or rc.change.actions contains "update")
}

instance_types_ok = rule {
  all changing as address, rc {
    rc.type is not "aws_instance" or rc.change.after.instance_type in allowed_types
  }
}

tags_ok = rule {
  all changing as address, rc {
    "owner" in keys(rc.change.after.tags else {})
  }
}

no_open_ingress = rule {
  all changing as address, rc {
    all rc.change.after.ingress else [] as rule_ {
      not (rule_.cidr_blocks contains "0.0.0.0/0")
    }
  }
}

modules = {}
for tfplan.resource_changes as address, rc {
  name = strings.split(rc.module_address, ".")[1]
  modules[name] = (modules[name] else 0) + 1
}

main = rule { instance_types_ok and tags_ok and no_open_ingress and length(modules) is 50 }
`;

function walkBench(): Pick<Figures, 'walkMs' | 'walkCpuMs' | 'convertMs'> {
  const plan = syntheticPlan(CHANGES);
  const convert: number[] = [];
  const evaluate: number[] = [];
  const cpu: number[] = [];
  let outcome = '';
  for (let round = 0; round < ROUNDS + 1; round++) {
    const t0 = performance.now();
    const data = tfplanFromJson(plan);
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const r = evaluatePolicy({ source: WALK_POLICY, filename: 'walk.sentinel', imports: { 'tfplan/v2': { data } } });
    const t2 = performance.now();
    const c2 = process.cpuUsage(c1);
    if (r.error) throw new Error(`walk policy failed: ${r.error.message} at ${r.error.line}:${r.error.column}`);
    outcome = `main = ${r.result}`;
    if (round === 0) continue; // warm-up
    convert.push(t1 - t0);
    evaluate.push(t2 - t1);
    cpu.push((c2.user + c2.system) / 1000);
  }
  const m = median(evaluate);
  console.log(
    `walk of ${CHANGES} resource changes (${outcome}): median evaluate ${ms(m)}, min ${ms(Math.min(...evaluate))}, max ${ms(Math.max(...evaluate))}, ` +
      `median CPU time ${ms(median(cpu))} (the process's, GC included); building tfplan/v2 from the plan JSON: median ${ms(median(convert))}`,
  );
  return { walkMs: m, walkCpuMs: median(cpu), convertMs: median(convert) };
}

/** The walk as a policy check makes it: a child process, the plan's JSON in, the result out. */
async function sandboxBench(): Promise<number> {
  const planJson = Buffer.from(JSON.stringify(syntheticPlan(CHANGES)));
  const times: number[] = [];
  for (let round = 0; round < (CHECK ? 1 : 3); round++) {
    const t0 = performance.now();
    const [r] = await evaluateInSandbox({
      policies: [{ source: WALK_POLICY, filename: 'walk.sentinel', params: {}, imports: {} }],
      terraform: { planJson },
      limits: { timeoutMs: 10_000, memoryMb: 512 },
    });
    if (r!.error) throw new Error(`walk policy failed in the sandbox: ${r!.error.message}`);
    times.push(performance.now() - t0);
  }
  const m = median(times);
  console.log(
    `the same walk in the sandbox (process start, ${(planJson.length / 1e6).toFixed(1)} MB of plan JSON parsed and converted, evaluation): median ${ms(m)}`,
  );
  return m;
}

function corpusBench(dir: string): Figures['corpus'] {
  const cases = findTestCases(dir);
  // A whole pass as `hangar sentinel test` makes it: shared files parsed once.
  const cache = new Map();
  for (const c of cases) runTestCase(c.file, c.policy, {}, cache); // warm-up
  const passes: number[] = [];
  let passed = 0;
  for (let round = 0; round < (CHECK ? 1 : 3); round++) {
    const passCache = new Map();
    const t0 = performance.now();
    passed = cases.filter((c) => runTestCase(c.file, c.policy, {}, passCache).passed).length;
    passes.push(performance.now() - t0);
  }
  const pass = median(passes);
  // One case at a time with nothing reused: read, parse and evaluate everything it needs.
  const perCase: number[] = [];
  for (const c of cases) {
    const times: number[] = [];
    for (let round = 0; round < CASE_ROUNDS; round++) times.push(runTestCase(c.file, c.policy).durationMs);
    perCase.push(median(times));
  }
  const m = median(perCase);
  const worst = Math.max(...perCase);
  const casesPerSecond = cases.length / (pass / 1000);
  console.log(
    `corpus ${path.relative(process.cwd(), dir) || dir}: ${cases.length} cases, ${passed} pass; a whole pass takes ${ms(pass)} ` +
      `(${casesPerSecond.toFixed(0)} cases/s); one case, parse + evaluate, nothing reused: median ${ms(m)}, slowest ${ms(worst)}`,
  );
  return { cases: cases.length, passed, casesPerSecond, medianMs: m, slowestMs: worst };
}

// Wall-clock figures mean little on a busy machine: say how busy it was.
const load = loadavg().map((l) => l.toFixed(1));
const machine = `${availableParallelism()} cores, load average ${load.join(' ')}`;
console.log(`machine: ${machine} (the goals are wall-clock; the CPU time is what one evaluation costs whatever the load)`);
const walk = walkBench();
const sandboxMs = await sandboxBench();
const corpusDir = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(import.meta.dirname, '../../shared/sentinel/terraform-sentinel-policies'));
const corpus = existsSync(corpusDir) ? corpusBench(corpusDir) : null;
if (!corpus) console.log(`corpus not found at ${corpusDir}: pass its directory as the first argument`);
const figures: Figures = { ...walk, sandboxMs, corpus };

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const goals = [
  {
    goal: `one policy walking ${CHANGES.toLocaleString('en')} resource changes: evaluation ≤ ${WALK_GOAL_MS} ms`,
    value: figures.walkMs,
    cpu: figures.walkCpuMs,
    bound: WALK_GOAL_MS,
  },
  ...(corpus ? [{ goal: `public corpus, one case parse + evaluate: median ≤ ${CASE_GOAL_MS} ms`, value: corpus.medianMs, bound: CASE_GOAL_MS }] : []),
];
const table = [
  '| goal | measured | met |',
  '|---|---:|:-:|',
  ...goals.map((g) => `| ${g.goal} | ${ms(g.value)} | ${mark(g.value <= g.bound)} |`),
  '',
  '| also measured | value |',
  '|---|---:|',
  `| the walk's CPU time (median) | ${ms(figures.walkCpuMs)} |`,
  `| building tfplan/v2 from the 10,000-change plan's JSON (median) | ${ms(figures.convertMs)} |`,
  `| the walk as a policy check runs it: sandbox process, plan JSON in (median) | ${ms(sandboxMs)} |`,
  ...(corpus
    ? [
        `| public corpus: cases passing | ${corpus.passed} of ${corpus.cases} |`,
        `| public corpus: whole pass, files parsed once | ${corpus.casesPerSecond.toFixed(0)} cases/s |`,
        `| public corpus: slowest case | ${ms(corpus.slowestMs)} |`,
      ]
    : []),
];
console.log(`\n${table.join('\n')}`);

if (WRITE) {
  const at = new Date().toISOString();
  const dir = path.join(import.meta.dirname, 'results');
  const md = [
    '# Sentinel benchmark (issue 29)',
    '',
    `\`npm run bench:sentinel -- --write\`, ${at}, Node ${process.version}, ${machine}.`,
    '',
    ...table,
    '',
    ...(loadavg()[0]! > availableParallelism()
      ? [
          '**The machine was loaded** (load average above its core count, other work sharing the CPU): the wall-clock',
          'figures overstate what evaluation costs; the CPU time is the fairer figure.',
          '',
        ]
      : []),
    'The goals are wall-clock times of one thread; on a loaded machine they are pessimistic (the',
    "walk's CPU time is what it costs). The corpus's 19 cases that call the http import fail here:",
    'policies get no network.',
    '',
  ];
  writeFileSync(path.join(dir, 'sentinel.md'), md.join('\n'));
  writeFileSync(path.join(dir, 'sentinel.json'), `${JSON.stringify({ at, node: process.version, machine, figures }, null, 2)}\n`);
  console.log('written: bench/results/sentinel.md, bench/results/sentinel.json');
}

// CI: only a miss by more than 2× fails, and the walk counts its CPU time when that is lower than
// its wall-clock time (another process had the CPU), so a busy machine does not fail the build.
const missed = goals.filter((g) => Math.min(g.value, ('cpu' in g ? g.cpu : undefined) ?? g.value) > 2 * g.bound);
if (CHECK && missed.length > 0) {
  console.error(`bench:sentinel: missed by more than 2×: ${missed.map((g) => `${g.goal} (${ms(g.value)})`).join('; ')}`);
  process.exit(1);
}
