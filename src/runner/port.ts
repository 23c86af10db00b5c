// What a runner needs from Hangar to execute a job, and what it reports back: the job protocol
// as one interface. The server's own workers implement it over the services (runner/local.ts);
// a remote agent would implement it over HTTP with the same calls, in the same order.
import type { Job } from '../jobs/service.ts';

/** A variable as a run receives it (the variables domain's `forRun` yields these). */
export interface RunVariable {
  key: string;
  value: string;
  category: 'terraform' | 'env';
  hcl: boolean;
  sensitive: boolean;
}

/** Where a run's workspace and variable set variables come from (none until the variables domain is wired). */
export interface VariableSource {
  forRun(workspaceId: string): Promise<RunVariable[]>;
}
export const noVariables: VariableSource = { forRun: async () => [] };

/** Where a run's SSH key comes from: the ssh-keys domain's `forRun` (the key its workspace names, in clear text). */
export interface SshKeySource {
  forRun(workspaceId: string): Promise<string | null>;
}
export const noSshKeys: SshKeySource = { forRun: async () => null };

export interface JobInputs {
  job: Job;
  runId: string;
  workspaceId: string;
  isDestroy: boolean;
  refresh: boolean;
  refreshOnly: boolean;
  targetAddrs: string[];
  replaceAddrs: string[];
  /** The configuration archive (.tar.gz) as uploaded. */
  archive: Uint8Array;
  /** The workspace's current state, if it has one. */
  state: Buffer | null;
  /** Workspace variables, then the run's own (`variables` of the run, HCL values), which win. */
  variables: RunVariable[];
  /** For an apply: the plan file its plan produced. */
  planFile: Buffer | null;
  /** The `terraform-version` the run asks for (its own, else its workspace's); absent: the runner's own. */
  terraformVersion?: string | null;
  /** The private key of the workspace's SSH key, for `terraform init` to clone modules over git+ssh; absent or null: none. */
  sshKey?: string | null;
}

export interface ResourceCounts {
  additions: number;
  changes: number;
  destructions: number;
  imports: number;
}

export interface JobPort {
  /** Claims the next job for this runner, if any (undefined: nothing waits). */
  claim(runner: string): Promise<Job | undefined>;
  /** The job is starting: false when its run has moved on (canceled) and it must not run. */
  started(job: Job): Promise<boolean>;
  inputs(job: Job): Promise<JobInputs>;
  log(job: Job, bytes: Uint8Array): Promise<void>;
  /**
   * Whether to carry on. `true`: carry on. `'cancel'`: a cancel was requested; interrupt
   * terraform (SIGINT, as Ctrl-C does), keep beating while it winds down, and report the outcome
   * as usual (the server ends the run `canceled`). `false`: the job is no longer this runner's
   * (force-canceled, errored, taken away): stop terraform; if `'cancel'` came before, kill it at
   * once. A port that only answers true/false still works: false then interrupts, and kills
   * after a grace period.
   */
  heartbeat(job: Job, runner: string): Promise<boolean | 'cancel'>;
  /**
   * Optional: calls `wake` when the job's run was canceled or force-canceled, so the runner beats
   * at once instead of at its next interval; returns the unsubscribe. Without it the runner
   * hears of a cancel at its next heartbeat (every HEARTBEAT_MS).
   */
  watch?(job: Job, wake: () => void): () => void;
  planned(job: Job, result: { planFile: Buffer; planJson: Buffer; counts: ResourceCounts; hasChanges: boolean }): Promise<void>;
  applied(job: Job, result: { state: Buffer | null; counts: ResourceCounts }): Promise<void>;
  failed(job: Job, reason: string, state?: Buffer | null): Promise<void>;
}
