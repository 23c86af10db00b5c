// The job protocol (port.ts) spoken in-process, over the services: what the server's own
// workers use. Each call is what an agent's HTTP call would do on the server's side.
import type { ConfigurationVersionsService } from '../configuration-versions/service.ts';
import type { Database } from '../db/index.ts';
import type { JobsService } from '../jobs/service.ts';
import { ApiError } from '../jsonapi/errors.ts';
import type { RunsService } from '../runs/service.ts';
import type { StateVersionsService } from '../state-versions/service.ts';
import { noSshKeys, type JobPort, type SshKeySource, type VariableSource } from './port.ts';

export function localJobPort(deps: {
  database: Database;
  jobs: JobsService;
  runs: RunsService;
  configurationVersions: ConfigurationVersionsService;
  stateVersions: StateVersionsService;
  variables: VariableSource;
  /** Absent: no job gets a key (a runner started without the ssh-keys domain). */
  sshKeys?: SshKeySource;
}): JobPort {
  const sshKeys = deps.sshKeys ?? noSshKeys;
  const { database, jobs, runs } = deps;
  return {
    claim: (runner) => database.transaction((trx) => jobs.claim(trx, runner, null)),
    started: (job) => runs.pipeline.started(job),
    async inputs(job) {
      const run = await runs.pipeline.runOf(job.runId);
      if (!run) throw new Error('the run is gone');
      const [archive, state, workspaceVariables, planFile, terraformVersion, sshKey] = await Promise.all([
        deps.configurationVersions.archive(run.configurationVersionId),
        deps.stateVersions.currentStateOf(run.workspaceId),
        deps.variables.forRun(run.workspaceId),
        job.phase === 'apply' ? runs.pipeline.planFileOf(run.id) : Promise.resolve(null),
        runs.pipeline.terraformVersionOf(run),
        sshKeys.forRun(run.workspaceId),
      ]);
      if (!archive) throw new Error('the configuration version has no archive');
      return {
        job,
        runId: run.id,
        workspaceId: run.workspaceId,
        isDestroy: run.isDestroy,
        refresh: run.refresh,
        refreshOnly: run.refreshOnly,
        targetAddrs: run.targetAddrs,
        replaceAddrs: run.replaceAddrs,
        archive,
        state,
        // Run variables are HCL values (TFE's run `variables`) and win over the workspace's.
        variables: [
          ...workspaceVariables.filter((v) => v.category === 'env' || !run.variables.some((r) => r.key === v.key)),
          ...run.variables.map((v) => ({ key: v.key, value: v.value, category: 'terraform' as const, hcl: true, sensitive: false })),
        ],
        planFile,
        terraformVersion,
        sshKey,
      };
    },
    log: (job, bytes) => jobs.appendLog(job.id, bytes),
    async heartbeat(job, runner) {
      const beat = await jobs.beat(job.id, runner);
      return beat === 'run' ? true : beat === 'cancel' ? 'cancel' : false;
    },
    watch: (job, wake) => jobs.watch(job.id, wake),
    async planned(job, result) {
      await database.transaction(async (trx) => {
        await jobs.putBlob(trx, job.id, 'plan-file', result.planFile);
        await jobs.putBlob(trx, job.id, 'plan-json', result.planJson);
      });
      await runs.pipeline.planned(job, result.counts, result.hasChanges);
    },
    async applied(job, result) {
      const run = await runs.pipeline.runOf(job.runId);
      if (result.state && run) {
        try {
          await deps.stateVersions.writeFromRun(run.workspaceId, run.id, result.state);
        } catch (e) {
          // A state Hangar refuses (its serial or lineage) errors the run; anything else (the
          // database dropped the connection) is thrown, and the runner reports again.
          if (!(e instanceof ApiError)) throw e;
          await runs.pipeline.failed(job, `The new state could not be recorded: ${e.message}`);
          return;
        }
      }
      await runs.pipeline.applied(job, result.counts);
    },
    async failed(job, reason, state) {
      const run = await runs.pipeline.runOf(job.runId);
      // What a failed or interrupted apply changed is real: its state is recorded all the same.
      if (state && run) {
        await deps.stateVersions.writeFromRun(run.workspaceId, run.id, state).catch((e: unknown) => {
          if (!(e instanceof ApiError)) throw e;
        });
      }
      await runs.pipeline.failed(job, reason);
    },
  };
}
