// Shared machinery for the benchmarks: child processes, their CPU time, load runs and statistics.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

const ROOT = path.resolve(import.meta.dirname, '..');
const execFileAsync = promisify(execFile);

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 almost everywhere). */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * CPU time (user + system) a process has used so far, all its threads, in microseconds; null
 * once it is gone. Read from each thread's /proc/<pid>/task/<tid>/schedstat, which counts in
 * nanoseconds; /proc/<pid>/stat's utime + stime is the same time in 10 ms ticks, too coarse
 * for runs of a fraction of a second, and serves only where schedstat is missing.
 */
export function cpuMicros(pid: number): number | null {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // A thread that ended between the listing and the read: its time is gone either way.
      }
    }
    if (ns > 0) return ns / 1000;
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS; // utime, stime
  } catch {
    return null;
  }
}

/** Peak resident set size of a process so far, in MiB (Linux VmHWM). */
export function peakRssMiB(pid: number): number | null {
  try {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : null;
  } catch {
    return null;
  }
}

export interface Proc {
  child: ChildProcess;
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * The Node flags and environment `npm start` gives the server (package.json), so the bench
 * measures what runs: the heap limits, the malloc arenas and the compile cache that keep peak RSS
 * down (docs/performance.md says what each does).
 */
function startScript(): { flags: string[]; env: Record<string, string> } {
  const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const words = start.split(/\s+/);
  const assignments = words
    .filter((word) => /^[A-Z_][A-Z0-9_]*=/.test(word))
    .map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]);
  return { flags: words.filter((word) => word.startsWith('--')), env: Object.fromEntries(assignments) };
}

/** How a server is launched: the command its Node runs under (valgrind, say), if any. */
export interface Launch {
  /** A command and its arguments, given Node's command line to run (`valgrind --tool=callgrind …`). */
  wrapper?: string[];
  /** More flags for Node (`--cpu-prof`, say). */
  nodeFlags?: string[];
}

/** Starts a Node script and resolves once it prints the address it listens on. */
export async function startProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
  pattern: RegExp,
  nodeFlags: string[] = [],
  { wrapper = [] }: Launch = {},
): Promise<Proc> {
  const command = [...wrapper, process.execPath, ...nodeFlags, path.join(ROOT, script), ...args];
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // Whatever ends the bench, its servers end with it.
  const orphaned = () => child.kill('SIGTERM');
  process.on('exit', orphaned);
  void exited.then(() => process.off('exit', orphaned));
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    // A server under valgrind starts many times slower.
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), wrapper.length ? 180_000 : 30_000);
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
  }).catch((e: unknown) => {
    child.kill('SIGTERM');
    throw e;
  });
  return {
    child,
    pid: child.pid!,
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Node's on-disk cache of compiled modules, for the server and every `hangar` command: start-up
 * is most of what a command costs, and the bench runs several. It changes nothing once running.
 */
const COMPILE_CACHE = { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(tmpdir(), 'hangar-bench-compile-cache') };

export function startHangar(env: Record<string, string>, launch: Launch = {}): Promise<Proc> {
  // Logging every request would measure pino, not Hangar.
  // Rate limits off: one token drives thousands of requests a second here.
  const start = startScript();
  return startProcess(
    'src/main.ts',
    ['serve'],
    { HANGAR_PORT: '0', HANGAR_LOG_LEVEL: 'warn', HANGAR_RATE_LIMIT: '0', ...COMPILE_CACHE, ...start.env, ...env },
    /hangar: serving (http:\/\/127\.0\.0\.1:\d+)/,
    [...start.flags, ...(launch.nodeFlags ?? [])],
    launch,
  );
}

/** The bare Fastify server every figure is divided by; `bodiesFile` is what its routes answer. */
export function startBaseline(bodiesFile: string, launch: Launch = {}): Promise<Proc> {
  return startProcess('bench/baseline.ts', [], { BASELINE_BODIES: bodiesFile }, /listening (http:\/\/127\.0\.0\.1:\d+)/, launch.nodeFlags ?? [], launch);
}

/** Runs the `hangar` command; resolves to its stdout. Several may run at once. */
export async function hangarCli(args: string[], env: Record<string, string>): Promise<string> {
  try {
    const { stdout } = await execFileAsync(process.execPath, [path.join(ROOT, 'src/main.ts'), ...args], { env: { ...process.env, ...COMPILE_CACHE, ...env } });
    return stdout.trim();
  } catch (e) {
    throw new Error(`hangar ${args[0]} ${args[1] ?? ''} failed: ${(e as { stderr?: string }).stderr ?? e}`);
  }
}

export interface LoadRequest {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The same body every time. */
  body?: string;
  /** A fresh body per request (creates that need unique names). */
  makeBody?: () => string;
}

/** One load run against one server: what it sent, and what the server spent on it. */
export interface Run {
  /** Requests sent, all answered. */
  requests: number;
  /** From the first request to the last answer. */
  seconds: number;
  /** Server CPU time (user + system, all threads), in microseconds. */
  cpuUs: number;
  /** PostgreSQL backends' CPU time, in microseconds (PostgreSQL runs only). */
  dbCpuUs?: number;
  /** Milliseconds, at microsecond precision. */
  latencies: number[];
  errors: number;
  non2xx: number;
}

/** Several runs of one scenario as one figure: totals divided by the requests. */
export interface Sample {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Server CPU time per request, in microseconds. */
  cpuUs: number;
  /** PostgreSQL backends' CPU time per request, in microseconds (PostgreSQL runs only). */
  dbCpuUs?: number;
  errors: number;
  non2xx: number;
}

export function summarize(runs: Run[]): Sample {
  const sum = (f: (r: Run) => number) => runs.reduce((t, r) => t + f(r), 0);
  const requests = Math.max(
    1,
    sum((r) => r.requests),
  );
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const sample: Sample = {
    requests,
    rps: Math.round(requests / sum((r) => r.seconds)),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpuUs: sum((r) => r.cpuUs) / requests,
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
  };
  if (runs[0]?.dbCpuUs !== undefined) sample.dbCpuUs = sum((r) => r.dbCpuUs ?? 0) / requests;
  return sample;
}

/** CPU time of helper processes outside the server (PostgreSQL backends), by process id, in µs. */
export interface CpuProbe {
  read(): Promise<Map<number, number>>;
}

const CONNECTIONS = 10;

/**
 * Sends `requests` requests with autocannon over 10 connections (each sends its next request
 * when the last is answered) and charges the server (process `pid`, and the `db` processes if
 * given) with the CPU time it used from the first request until it is idle after the last:
 * every request is answered, none is cut off half-served. Each run leaves its server idle, so
 * the next run (on either server) starts from quiet.
 */
export async function measure(pid: number, r: LoadRequest, requests: number, db?: CpuProbe): Promise<Run> {
  const latencies: number[] = [];
  let non2xx = 0;
  const dbBefore = await db?.read();
  const cpuBefore = cpuMicros(pid);
  const started = performance.now();
  let lastResponse = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: r.url,
        connections: CONNECTIONS,
        amount: Math.max(CONNECTIONS, Math.round(requests)),
        // autocannon reports the end of a run at its next sample tick.
        sampleInt: 10,
        headers: r.headers,
        requests: [
          {
            method: r.method ?? 'GET',
            ...(r.body !== undefined ? { body: r.body } : {}),
            ...(r.makeBody ? { setupRequest: (req: any) => ({ ...req, body: r.makeBody!() }) } : {}),
          },
        ],
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    // autocannon's own histogram keeps whole milliseconds; sub-millisecond requests need more.
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      lastResponse = performance.now();
      if (status < 200 || status > 299) non2xx++;
    });
  });
  const elapsed = (lastResponse - started) / 1000;
  await idle(pid);
  const cpuAfter = cpuMicros(pid);
  const dbAfter = await db?.read();
  if (cpuBefore === null || cpuAfter === null) throw new Error(`process ${pid} is gone`);
  const run: Run = { requests: latencies.length, seconds: elapsed, cpuUs: cpuAfter - cpuBefore, latencies, errors: result.errors + result.timeouts, non2xx };
  if (dbBefore && dbAfter) {
    run.dbCpuUs = 0;
    for (const [p, after] of dbAfter) run.dbCpuUs += after - (dbBefore.get(p) ?? 0);
  }
  return run;
}

/**
 * Waits until the process uses next to no CPU: under 2% of a core over 10 ms, at most 5 s. Every
 * request of the run has been answered by then, so the database has finished its part too.
 */
async function idle(pid: number): Promise<void> {
  let last = cpuMicros(pid) ?? 0;
  for (let i = 0; i < 500; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = cpuMicros(pid) ?? 0;
    if (now - last < 200) return;
    last = now;
  }
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median wall time (ms) of `fn` over `runs`, and the server's mean CPU time per run (µs). */
export async function timeRuns(runs: number, pid: number, fn: () => Promise<void>): Promise<{ ms: number; cpuUs: number }> {
  const times: number[] = [];
  const before = cpuMicros(pid)!;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return { ms: median(times), cpuUs: (cpuMicros(pid)! - before) / runs };
}
