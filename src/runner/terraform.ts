// Runs the terraform binary for a job: in the job's directory, with a clean environment (PATH,
// HOME and TMPDIR of the job, never Hangar's own settings or secrets), its output streamed line
// by line to a sink, stopped by SIGINT (then SIGKILL) when the job is canceled or out of time, killed at once
// when it is force-canceled.
import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config.ts';

export interface TerraformSettings {
  /** `HANGAR_TERRAFORM_BINARY`, else `terraform` on PATH. */
  binary: string;
  /** The PATH the child sees (the server's own, so the binary and its helpers resolve). */
  path: string;
  /** Extra environment for every job (a plugin cache, a CLI configuration of the runner's). */
  env: Record<string, string>;
  /** `HANGAR_TERRAFORM_MIRROR`: where other versions come from (runner/versions.ts); null = nowhere. */
  mirror: string | null;
  /** Where fetched versions are kept (`<data dir>/terraform`). */
  versionsDir: string;
}

/** The settings from Hangar's configuration; `path` is the server's own PATH (so the binary and its helpers resolve). */
export function terraformSettings(
  config: Pick<Config, 'terraformBinary' | 'terraformPluginCacheDir' | 'terraformCliConfigFile'> & Partial<Pick<Config, 'terraformMirror' | 'dataDir'>>,
  path: string,
): TerraformSettings {
  const extra: Record<string, string> = {};
  if (config.terraformPluginCacheDir) extra.TF_PLUGIN_CACHE_DIR = config.terraformPluginCacheDir;
  if (config.terraformCliConfigFile) extra.TF_CLI_CONFIG_FILE = config.terraformCliConfigFile;
  return {
    binary: config.terraformBinary,
    path,
    env: extra,
    mirror: config.terraformMirror ?? null,
    versionsDir: join(config.dataDir ?? join(tmpdir(), 'hangar-data'), 'terraform'),
  };
}

let version: string | null = null;
/** The binary's version (`1.11.4`), read once; `unknown` if it cannot be run. */
export async function terraformVersion(settings: TerraformSettings): Promise<string> {
  if (version) return version;
  try {
    const { stdout } = await promisify(execFile)(settings.binary, ['version', '-json'], { env: { PATH: settings.path }, timeout: 10_000 });
    version = String((JSON.parse(stdout) as { terraform_version?: string }).terraform_version ?? 'unknown');
  } catch {
    version = 'unknown';
  }
  return version;
}
export const knownTerraformVersion = () => version ?? 'unknown';

export interface Invocation {
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Each line of output (stdout and stderr, in arrival order), without its newline. */
  onLine: (line: string) => void;
  /** Aborted: the process is interrupted (SIGINT), then killed 10 s later. */
  signal: AbortSignal;
  /** Aborted: the process is killed at once (SIGKILL: a force-cancel). */
  kill?: AbortSignal;
}

/** Runs terraform; resolves with its exit code (null when it was killed). */
export function runTerraform(settings: TerraformSettings, inv: Invocation): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(settings.binary, inv.args, { cwd: inv.cwd, env: inv.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let killer: NodeJS.Timeout | undefined;
    const stop = () => {
      child.kill('SIGINT');
      killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      killer.unref();
    };
    const kill = () => child.kill('SIGKILL');
    if (inv.signal.aborted) stop();
    inv.signal.addEventListener('abort', stop, { once: true });
    if (inv.kill?.aborted) kill();
    inv.kill?.addEventListener('abort', kill, { once: true });
    const lines = (stream: NodeJS.ReadableStream) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        // Only a chunk with a newline is split, so a long line (`show -json` prints one of many
        // MiB) is joined once, not rescanned with every chunk that extends it.
        const end = text.lastIndexOf('\n');
        if (end < 0) {
          rest += text;
          return;
        }
        const parts = (rest + text.slice(0, end)).split('\n');
        rest = text.slice(end + 1);
        for (const p of parts) inv.onLine(p);
      });
      stream.on('end', () => {
        if (rest) inv.onLine(rest);
      });
    };
    lines(child.stdout);
    lines(child.stderr);
    child.on('error', (e) => {
      inv.signal.removeEventListener('abort', stop);
      inv.kill?.removeEventListener('abort', kill);
      reject(e);
    });
    child.on('close', (code) => {
      inv.signal.removeEventListener('abort', stop);
      inv.kill?.removeEventListener('abort', kill);
      if (killer) clearTimeout(killer);
      resolve(code);
    });
  });
}
