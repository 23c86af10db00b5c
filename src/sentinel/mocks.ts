// Sentinel mocks of a real plan: the files of a `sentinel-mock-bundle-v0` plan export, which a
// policy author unpacks beside a policy's test cases (`mock "tfplan/v2" { module { source = … } }`)
// to test against what a run really planned. Each mock is a Sentinel module whose top-level
// values are the import's: the same data the policy checks of the run get (tfplan.ts,
// tfconfig.ts, tfstate.ts, tfrun.ts), written as Sentinel literals, so a policy evaluated with the
// mocks sees exactly what it sees in the run.
//
// HashiCorp's bundles also hold mocks of the v1 imports (`tfplan`, `tfconfig`, `tfstate`), which
// HCP Terraform no longer serves; Hangar gives the v2 imports and `tfrun`, as its checks do.
import { Worker } from 'node:worker_threads';
import { obj, type Json } from './json.ts';
import { tfconfigFromJson } from './tfconfig.ts';
import { tfplanFromJson } from './tfplan.ts';
import { tfrunFromRun, type RunDescription } from './tfrun.ts';
import { tfstateFromJson } from './tfstate.ts';

/** A lone UTF-16 surrogate cannot be written in Sentinel source (its escape is an error): U+FFFD stands in. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A string as a Sentinel string literal: JSON's escapes are all Sentinel escapes too. */
function stringLiteral(s: string): string {
  return JSON.stringify(s.replace(LONE_SURROGATE, '\ufffd'));
}

/**
 * A number as the literal that reads back as the same Sentinel value: a JSON integer is an int
 * whatever its size (as the imports read it), so it is written in digits, never with an exponent.
 */
function numberLiteral(n: number): string {
  if (!Number.isFinite(n)) throw new Error('a plan holds no infinite number');
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
  return String(n);
}

/** A JSON value as Sentinel source, one entry a line, indented by `depth` tabs. */
export function sentinelLiteral(value: Json, depth = 0): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return numberLiteral(value);
  if (typeof value === 'string') return stringLiteral(value);
  const inner = '\t'.repeat(depth + 1);
  const outer = '\t'.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${inner}${sentinelLiteral(v, depth + 1)},\n`).join('')}${outer}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${stringLiteral(k)}: ${sentinelLiteral(v, depth + 1)},\n`).join('')}${outer}}`;
}

/** A module whose top-level values are `data`'s keys (each an identifier in the imports' data). */
export function mockModule(data: Record<string, Json>): string {
  return Object.entries(data)
    .map(([name, v]) => `${name} = ${sentinelLiteral(v)}\n`)
    .join('\n');
}

export interface MockFile {
  name: string;
  text: string;
}

/** The imports a bundle mocks, each with its file. */
const MOCKED = [
  ['tfconfig/v2', 'mock-tfconfig-v2.sentinel'],
  ['tfplan/v2', 'mock-tfplan-v2.sentinel'],
  ['tfrun', 'mock-tfrun.sentinel'],
  ['tfstate/v2', 'mock-tfstate-v2.sentinel'],
] as const;

/**
 * The files of a mock bundle for a plan (`terraform show -json` of it, as the run's checks read it)
 * and the run it belongs to: a mock module per import, and a `sentinel.hcl` naming them.
 */
export function mockBundle(planJson: string, run: RunDescription): MockFile[] {
  const plan: unknown = planJson ? JSON.parse(planJson) : {};
  const prior = obj(plan).prior_state;
  const data: Record<(typeof MOCKED)[number][0], Record<string, Json>> = {
    'tfconfig/v2': tfconfigFromJson(plan),
    'tfplan/v2': tfplanFromJson(plan),
    tfrun: tfrunFromRun(run),
    'tfstate/v2': tfstateFromJson(prior ?? {}),
  };
  const files = MOCKED.map(([name, file]) => ({ name: file, text: mockModule(data[name]) }));
  const hcl = MOCKED.map(([name, file]) => `mock ${JSON.stringify(name)} {\n  module {\n    source = ${JSON.stringify(file)}\n  }\n}\n`).join('\n');
  return [...files, { name: 'sentinel.hcl', text: hcl }];
}

/**
 * mockBundle on a worker thread: a plan's JSON can run to many megabytes, and parsing and printing
 * it on the caller's thread would stall everything else the process serves meanwhile.
 */
export function mockBundleOffThread(planJson: string, run: RunDescription): Promise<MockFile[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./mocks-worker.ts', import.meta.url), { workerData: { planJson, run } });
    worker.once('message', (files: MockFile[]) => resolve(files));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the mock bundle worker stopped (${code})`)));
  });
}
