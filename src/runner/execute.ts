// Executes one claimed job with the real terraform binary. Each job gets a fresh directory
// holding only the configuration, the workspace's current state and the variables; Terraform's
// `cloud`/`backend` block is overridden by `backend "local"` (an override file), so the run keeps
// its state in `terraform.tfstate` there and never calls back into Hangar. The plan phase keeps
// the plan file; the apply phase applies exactly that file.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Job } from '../jobs/service.ts';
import { unpackArchive } from '../archive.ts';
import type { JobInputs, JobPort, RunVariable } from './port.ts';
import { countChanges, redactPlanJson, scrub } from './redact.ts';
import { runTerraform, terraformVersion, type TerraformSettings } from './terraform.ts';
import { chooseTerraform } from './versions.ts';
import { HEARTBEAT_MS } from '../jobs/service.ts';

export interface ExecuteOptions {
  settings: TerraformSettings;
  runner: string;
  /** Wall-clock limit of one job (`HANGAR_RUN_TIMEOUT`). */
  timeoutMs: number;
  /** Log bytes kept per job; the rest is dropped with a note. */
  maxLogBytes: number;
}

const OVERRIDE = 'zzzz_hangar_backend_override.tf';
const BACKEND = 'terraform {\n  backend "local" {\n    path = "terraform.tfstate"\n  }\n}\n';
// Names that define where the child runs and what it may reach: never taken from a variable.
const RESERVED_ENV = new Set(['PATH', 'HOME', 'TMPDIR', 'TF_CLI_CONFIG_FILE', 'TF_PLUGIN_CACHE_DIR', 'TF_DATA_DIR', 'TF_IN_AUTOMATION', 'TF_INPUT']);

/** A word for the shell, whatever it holds: git runs GIT_SSH_COMMAND through `sh -c`. */
const shellWord = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The workspace's SSH key, for `terraform init` to clone modules over git+ssh: written inside the
 * job's own directory (removed with it), readable by its owner only, and named by GIT_SSH_COMMAND
 * so that git's ssh uses that key alone (IdentitiesOnly: never an agent's or ~/.ssh's keys),
 * never prompts (BatchMode: a key with a passphrase fails instead of hanging the job), and trusts
 * a host on first sight into a known-hosts file of this job's own (HCP Terraform's workers do not
 * check host keys either; a fresh file per job means nothing carries over between jobs).
 */
async function sshSetup(dir: string, key: string): Promise<string> {
  const sshDir = path.join(dir, 'ssh');
  await mkdir(sshDir, { mode: 0o700 });
  const keyFile = path.join(sshDir, 'id_workspace');
  const knownHosts = path.join(sshDir, 'known_hosts');
  // OpenSSH refuses a key file without a final newline or with CRLF line ends (pasted from Windows).
  const text = key.replaceAll('\r\n', '\n');
  await writeFile(keyFile, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(keyFile, 0o600); // whatever the umask
  await writeFile(knownHosts, '', { mode: 0o600, flag: 'wx' });
  return [
    'ssh',
    `-i ${shellWord(keyFile)}`,
    '-o IdentitiesOnly=yes',
    '-o BatchMode=yes',
    '-o StrictHostKeyChecking=accept-new',
    `-o UserKnownHostsFile=${shellWord(knownHosts)}`,
  ].join(' ');
}

/** What of a private key must never reach a log: the whole text, and each of its lines of key material. */
function keySecrets(key: string | null | undefined): string[] {
  if (!key) return [];
  const lines = key
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.length >= 16 && !l.startsWith('-----'));
  return [key, key.trim(), ...lines];
}

/** An HCL string literal: JSON's escapes, plus template sequences kept literal. */
const hclString = (s: string) => JSON.stringify(s).replaceAll('${', '$${').replaceAll('%{', '%%{');

function tfvars(vars: readonly RunVariable[]): string {
  return vars.map((v) => `${v.key} = ${v.hcl ? v.value : hclString(v.value)}\n`).join('');
}

/** Streams log lines to the port in batches, scrubbed, capped. */
function logWriter(port: JobPort, job: Job, secrets: readonly string[], maxBytes: number) {
  let pending: string[] = [];
  let written = 0;
  let truncated = false;
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    if (pending.length === 0) return flushing;
    const text = pending.join('');
    pending = [];
    // A failed append (the database dropped the connection) is put back and sent with the next
    // flush: lines are neither lost nor reordered, and the failure never escapes unhandled.
    flushing = flushing.then(() =>
      port.log(job, Buffer.from(text, 'utf8')).catch(() => {
        pending.unshift(text);
      }),
    );
    return flushing;
  };
  const timer = setInterval(() => void flush(), 200);
  timer.unref();
  return {
    line(raw: string) {
      if (truncated) return;
      const line = `${scrub(raw, secrets)}\n`;
      const size = Buffer.byteLength(line);
      if (written + size > maxBytes) {
        truncated = true;
        pending.push(`\n[Hangar: the log reached its limit of ${maxBytes} bytes; the rest is not kept]\n`);
        return;
      }
      written += size;
      pending.push(line);
    },
    async close() {
      clearInterval(timer);
      await flush();
      if (pending.length > 0) await flush();
    },
  };
}

/** Runs the job to its end and reports the outcome through the port; never throws. */
export async function executeJob(port: JobPort, job: Job, options: ExecuteOptions): Promise<void> {
  let inputs: JobInputs;
  try {
    if (!(await port.started(job))) return;
    inputs = await port.inputs(job);
  } catch (e) {
    await port.failed(job, `The job could not start: ${(e as Error).message}`).catch(() => {});
    return;
  }
  const secrets = [...inputs.variables.filter((v) => v.sensitive && v.value.length > 0).map((v) => v.value), ...keySecrets(inputs.sshKey)].sort(
    (a, b) => b.length - a.length,
  );
  const log = logWriter(port, job, secrets, options.maxLogBytes);
  const abort = new AbortController();
  const killer = new AbortController();
  let why: string | null = null;
  const stop = (reason: string) => {
    why ??= reason;
    abort.abort();
  };
  const deadline = setTimeout(
    () => stop(`The run exceeded its time limit of ${Math.round(options.timeoutMs / 1000)} s (HANGAR_RUN_TIMEOUT)`),
    options.timeoutMs,
  );
  // A requested cancel interrupts terraform (which winds down and writes what state it has); the
  // job being no longer ours after that (a force-cancel) kills it at once.
  let cancelSeen = false;
  const check = () =>
    port.heartbeat(job, options.runner).then(
      (answer) => {
        if (answer === true) return;
        if (answer === false && cancelSeen) killer.abort();
        cancelSeen ||= answer === 'cancel';
        stop(CANCELED);
      },
      () => {},
    );
  const beat = setInterval(() => void check(), HEARTBEAT_MS);
  // Woken the moment a cancel is made in this process, rather than at the next beat.
  const unwatch = port.watch?.(job, () => void check());
  const dir = await mkdtemp(path.join(tmpdir(), 'hangar-job-'));
  const work = path.join(dir, 'config');
  try {
    await Promise.all([mkdir(work), mkdir(path.join(dir, 'home')), mkdir(path.join(dir, 'tmp'))]);
    await writeFile(path.join(dir, 'terraformrc'), '');
    const env: Record<string, string> = {};
    for (const v of inputs.variables) if (v.category === 'env' && !RESERVED_ENV.has(v.key)) env[v.key] = v.value;
    Object.assign(env, {
      PATH: options.settings.path,
      HOME: path.join(dir, 'home'),
      TMPDIR: path.join(dir, 'tmp'),
      TF_IN_AUTOMATION: '1',
      TF_INPUT: '0',
      TF_CLI_CONFIG_FILE: path.join(dir, 'terraformrc'),
      ...options.settings.env,
    });
    // Set last: the workspace's key wins over a GIT_SSH_COMMAND variable.
    if (inputs.sshKey) env.GIT_SSH_COMMAND = await sshSetup(dir, inputs.sshKey);
    await unpackArchive(inputs.archive, work);
    await writeFile(path.join(work, OVERRIDE), BACKEND);
    if (inputs.state) await writeFile(path.join(work, 'terraform.tfstate'), inputs.state);
    const terraformVars = inputs.variables.filter((v) => v.category === 'terraform');
    if (terraformVars.length > 0) await writeFile(path.join(work, 'zzzz_hangar.auto.tfvars'), tfvars(terraformVars));

    let chosen: { binary: string; version: string };
    try {
      chosen = await chooseTerraform(options.settings, await terraformVersion(options.settings), inputs.terraformVersion);
    } catch (e) {
      throw new JobError((e as Error).message);
    }
    const settings = { ...options.settings, binary: chosen.binary };
    const tf = (args: string[], onLine = log.line) => runTerraform(settings, { args, cwd: work, env, onLine, signal: abort.signal, kill: killer.signal });
    log.line(`Terraform v${chosen.version}`);
    log.line(`Executed by Hangar's runner (${options.runner}): ${job.phase} of run ${inputs.runId}, workspace ${inputs.workspaceId}`);
    log.line('');
    if ((await tf(['init', '-input=false', '-no-color'])) !== 0) throw new JobError(why ?? 'terraform init failed');

    if (job.phase === 'plan') {
      const args = ['plan', '-input=false', '-no-color', '-out=plan.bin', '-detailed-exitcode'];
      if (inputs.isDestroy) args.push('-destroy');
      if (inputs.refreshOnly) args.push('-refresh-only');
      if (!inputs.refresh) args.push('-refresh=false');
      for (const t of inputs.targetAddrs) args.push(`-target=${t}`);
      for (const r of inputs.replaceAddrs) args.push(`-replace=${r}`);
      const code = await tf(args);
      if (code !== 0 && code !== 2) throw new JobError(why ?? 'terraform plan failed');
      const shown: string[] = [];
      if ((await tf(['show', '-json', '-no-color', 'plan.bin'], (l) => shown.push(l))) !== 0) throw new JobError(why ?? 'terraform show failed');
      const json = shown.join('\n');
      const counts = countChanges(json);
      await log.close();
      const planFile = await readFile(path.join(work, 'plan.bin'));
      await reported(() =>
        port.planned(job, {
          planFile,
          planJson: Buffer.from(redactPlanJson(json, secrets), 'utf8'),
          counts,
          // Exit code 2: the plan has changes (resources or outputs).
          hasChanges: code === 2,
        }),
      );
      return;
    }

    if (!inputs.planFile) throw new JobError('The plan file of this run is missing');
    await writeFile(path.join(work, 'plan.bin'), inputs.planFile);
    const shown: string[] = [];
    await tf(['show', '-json', '-no-color', 'plan.bin'], (l) => shown.push(l));
    const code = await tf(['apply', '-input=false', '-no-color', '-auto-approve', 'plan.bin']);
    const state = await readFile(path.join(work, 'terraform.tfstate')).catch(() => null);
    const changed = state !== null && (inputs.state === null || !state.equals(inputs.state)) ? state : null;
    if (code !== 0) {
      log.line(why === CANCELED ? 'Apply canceled.' : '');
      await log.close();
      await reported(() => port.failed(job, why ?? 'terraform apply failed', changed));
      return;
    }
    await log.close();
    let counts = { additions: 0, changes: 0, destructions: 0, imports: 0 };
    try {
      counts = countChanges(shown.join('\n'));
    } catch {
      // The counts are a summary; the apply itself succeeded.
    }
    await reported(() => port.applied(job, { state: changed, counts }));
  } catch (e) {
    const reason = e instanceof JobError ? e.message : `The job failed: ${(e as Error).message}`;
    log.line(why === CANCELED ? `The ${job.phase} was canceled.` : `Error: ${reason}`);
    await log.close().catch(() => {});
    // Reported even when canceled: the server ends the run `canceled` when a cancel was requested
    // (and ignores the report of a job that is no longer running).
    await reported(() => port.failed(job, reason)).catch(() => {});
  } finally {
    clearTimeout(deadline);
    clearInterval(beat);
    unwatch?.();
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

class JobError extends Error {}

/**
 * A job's outcome (with the state an apply wrote) is worth a few tries: a connection the database
 * dropped a moment ago fails one call, and the next gets a fresh one. Reports are conditional
 * writes, so a retry of one that did land changes nothing.
 */
async function reported(report: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await report();
    } catch (e) {
      if (attempt >= 5) throw e;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

const CANCELED = 'The run was canceled';
