// Starts this instance's runner over its services: HANGAR_RUNNER_CONCURRENCY workers and the
// scheduler (runner/workers.ts), executing jobs in-process through the local job port.
import { mkdirSync } from 'node:fs';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { ConfigurationVersionsService } from '../configuration-versions/service.ts';
import type { JobSignal, JobsService } from '../jobs/service.ts';
import type { RunsService } from '../runs/service.ts';
import type { AutoDestroyService } from '../auto-destroy/service.ts';
import type { StateVersionsService } from '../state-versions/service.ts';
import { localJobPort } from './local.ts';
import { noVariables, type SshKeySource, type VariableSource } from './port.ts';
import { terraformSettings, terraformVersion } from './terraform.ts';
import { startWorkers, type Workers } from './workers.ts';

export const SILENCE_MS = 60_000;

export function startRunner(opts: {
  services: {
    jobs: JobsService;
    jobSignal: JobSignal;
    runs: RunsService;
    configurationVersions: ConfigurationVersionsService;
    stateVersions: StateVersionsService;
    /** Absent: this runner's scheduler does no auto-destroy pass. */
    autoDestroy?: AutoDestroyService;
    /** The ssh-keys domain: each job gets its workspace's key. Absent: none does. */
    sshKeys?: SshKeySource;
  };
  database: Database;
  config: Pick<Config, 'runnerConcurrency' | 'runTimeoutMs' | 'runMaxLogBytes' | 'terraformBinary' | 'terraformPluginCacheDir' | 'terraformCliConfigFile'> &
    Partial<Pick<Config, 'runnerSilenceMs' | 'terraformMirror' | 'dataDir'>>;
  /** The variables domain's `forRun`, once wired; none otherwise. */
  variables?: VariableSource;
  /** The PATH jobs see (default: the server's). */
  path?: string;
  pollMs?: number;
  silenceMs?: number;
  onError?: (e: unknown) => void;
}): Workers {
  const { services, database, config } = opts;
  const settings = terraformSettings(config, opts.path ?? '/usr/local/bin:/usr/bin:/bin');
  void terraformVersion(settings);
  // Terraform refuses a plugin cache directory that does not exist; a fresh runner makes it.
  if (config.terraformPluginCacheDir) {
    try {
      mkdirSync(config.terraformPluginCacheDir, { recursive: true });
    } catch (e) {
      opts.onError?.(e);
    }
  }
  const port = localJobPort({
    database,
    jobs: services.jobs,
    runs: services.runs,
    configurationVersions: services.configurationVersions,
    stateVersions: services.stateVersions,
    variables: opts.variables ?? noVariables,
    ...(services.sshKeys ? { sshKeys: services.sshKeys } : {}),
  });
  return startWorkers(port, services.runs, services.jobSignal, {
    concurrency: config.runnerConcurrency,
    silenceMs: opts.silenceMs ?? config.runnerSilenceMs ?? SILENCE_MS,
    pollMs: opts.pollMs ?? 2_000,
    execute: { settings, timeoutMs: config.runTimeoutMs, maxLogBytes: config.runMaxLogBytes },
    autoDestroy: services.autoDestroy,
    onError: opts.onError,
  });
}
