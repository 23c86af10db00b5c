// Shared machinery for the benchmarks: child processes, load runs and their statistics.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface Proc {
  child: ChildProcess;
  url: string;
  /** Peak resident set size so far, in MiB (Linux VmHWM). */
  peakRssMiB(): number | null;
  stop(): Promise<void>;
}

/** Starts a Node script and resolves once it prints the address it listens on. */
export async function startProcess(script: string, args: string[], env: Record<string, string>, pattern: RegExp): Promise<Proc> {
  const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 100_000) output = output.slice(-50_000);
      const m = pattern.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${output}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    url,
    peakRssMiB() {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
        return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
      } catch {
        return null;
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export function startHangar(env: Record<string, string>): Promise<Proc> {
  // Logging every request would measure pino, not Hangar.
  // Rate limits off: one token drives thousands of requests a second here.
  return startProcess('src/main.ts', ['serve'], { HANGAR_PORT: '0', HANGAR_LOG_LEVEL: 'warn', HANGAR_RATE_LIMIT: '0', ...env }, /hangar: serving (http:\/\/127\.0\.0\.1:\d+)/);
}

export function startBaseline(body: string): Promise<Proc> {
  return startProcess('bench/baseline.ts', [], { BASELINE_BODY: body }, /listening (http:\/\/127\.0\.0\.1:\d+)/);
}

export function hangarCli(args: string[], env: Record<string, string>): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'src/main.ts'), ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hangar ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** A fresh body per request (for creates that need unique names). */
  body?: () => string;
  seconds: number;
  connections?: number;
}

export async function load(o: LoadOptions): Promise<Load> {
  const result = await autocannon({
    url: o.url,
    connections: o.connections ?? 10,
    duration: o.seconds,
    headers: o.headers,
    requests: [
      {
        method: o.method ?? 'GET',
        ...(o.body ? { setupRequest: (req: any) => ({ ...req, body: o.body!() }) } : {}),
      },
    ],
  });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Wall time of `fn` in milliseconds, median of `runs`. */
export async function medianMs(runs: number, fn: () => Promise<void>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]! * 100) / 100;
}

export const ratio = (value: number, base: number) => (base === 0 ? 0 : Math.round((value / base) * 100) / 100);
