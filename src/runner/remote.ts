// The job protocol (port.ts) spoken over HTTP to /api/agent: what `hangar agent` hands to
// executeJob, so an agent runs a job exactly as the server's own workers do. Every call carries
// the agent token; a 401 means the token was revoked (or its pool deleted), which the agent must
// stop on at once: `onRefused` tells it, and the heartbeat then tells the job in hand to stop.
import type { Job } from '../jobs/service.ts';
import type { JobInputs, JobPort, RunVariable } from './port.ts';

export class TokenRefused extends Error {
  constructor() {
    super('Hangar refused the agent token (revoked, or its agent pool deleted)');
  }
}

export class ProtocolError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export interface AgentClient {
  /** A JSON call to `/api/agent/<path>`; null for 204. */
  call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T | null>;
  /** Whether the token has been refused once: every later call is refused without asking. */
  readonly refused: boolean;
}

/** Log bytes per request: a burst of output goes as several appends, each under the route's limit. */
const LOG_PART = 1024 * 1024;

export function agentClient(baseUrl: string, token: string, onRefused: () => void): AgentClient {
  const root = baseUrl.replace(/\/+$/, '');
  let refused = false;
  return {
    get refused() {
      return refused;
    },
    async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T | null> {
      if (refused) throw new TokenRefused();
      const res = await fetch(`${root}/api/agent/${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
      if (res.status === 401) {
        await res.body?.cancel();
        if (!refused) {
          refused = true;
          onRefused();
        }
        throw new TokenRefused();
      }
      if (res.status === 204) return null;
      const text = await res.text();
      if (!res.ok) {
        // The error document's detail, never the request (which may hold state or variables).
        let detail = text.slice(0, 200);
        try {
          const e = (JSON.parse(text) as { errors?: Array<{ title?: string; detail?: string }> }).errors?.[0];
          detail = e?.detail ?? e?.title ?? detail;
        } catch {
          // Not JSON: a proxy's page; its start is enough.
        }
        throw new ProtocolError(res.status, `${method} /api/agent/${path}: ${res.status} ${detail}`);
      }
      return JSON.parse(text) as T;
    },
  };
}

interface Claimed {
  id: string;
  'run-id': string;
  phase: 'plan' | 'apply';
  runner: string;
}

interface Inputs {
  'run-id': string;
  'workspace-id': string;
  'is-destroy': boolean;
  refresh: boolean;
  'refresh-only': boolean;
  'target-addrs': string[];
  'replace-addrs': string[];
  archive: string;
  state: string | null;
  variables: RunVariable[];
  'plan-file': string | null;
  /** Absent from a server that predates it: the agent's own binary then. */
  'terraform-version'?: string | null;
  /** Absent from a server that predates SSH keys. */
  'ssh-key'?: string | null;
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const fromB64 = (s: string | null) => (s === null ? null : Buffer.from(s, 'base64'));

/**
 * The job as an agent knows it: what the claim answered. executeJob reads only its id and
 * phase; the rest of the row stays on the server.
 */
function jobOf(c: Claimed): Job {
  return {
    id: c.id,
    runId: c['run-id'],
    phase: c.phase,
    status: 'running',
    agentPoolId: null,
    runner: c.runner,
    heartbeatAt: null,
    cancelRequestedAt: null,
    statusTimestamps: {},
    additions: null,
    changes: null,
    destructions: null,
    imports: null,
    logSize: 0,
    logComplete: false,
    createdAt: '',
  };
}

export function remoteJobPort(client: AgentClient, options: { waitSeconds: number; claimSignal?: (runner: string) => AbortSignal | undefined }): JobPort {
  const runnerOf = (job: Job) => job.runner!;
  const jobPath = (job: Job, what: string) => `jobs/${encodeURIComponent(job.id)}/${what}`;
  return {
    async claim(runner) {
      const claimed = await client.call<Claimed>('POST', 'jobs/claim', { runner, wait: options.waitSeconds }, options.claimSignal?.(runner));
      return claimed ? jobOf(claimed) : undefined;
    },
    async started(job) {
      return (await client.call<{ proceed: boolean }>('POST', jobPath(job, 'start'), { runner: runnerOf(job) }))!.proceed;
    },
    async inputs(job): Promise<JobInputs> {
      const i = (await client.call<Inputs>('GET', `${jobPath(job, 'inputs')}?runner=${encodeURIComponent(runnerOf(job))}`))!;
      return {
        job,
        runId: i['run-id'],
        workspaceId: i['workspace-id'],
        isDestroy: i['is-destroy'],
        refresh: i.refresh,
        refreshOnly: i['refresh-only'],
        targetAddrs: i['target-addrs'],
        replaceAddrs: i['replace-addrs'],
        archive: fromB64(i.archive)!,
        state: fromB64(i.state),
        variables: i.variables,
        planFile: fromB64(i['plan-file']),
        terraformVersion: i['terraform-version'] ?? null,
        sshKey: i['ssh-key'] ?? null,
      };
    },
    async log(job, bytes) {
      // A log that cannot be appended (the job was canceled meanwhile, the network hiccuped) is
      // lost, not fatal: executeJob flushes from a timer, where a rejection would end the agent.
      try {
        for (let at = 0; at < bytes.byteLength; at += LOG_PART)
          await client.call('POST', jobPath(job, 'log'), { runner: runnerOf(job), chunk: b64(bytes.subarray(at, at + LOG_PART)) });
      } catch {
        // See above.
      }
    },
    async heartbeat(job, runner) {
      // A refused token stops the job in hand: the agent is leaving.
      if (client.refused) return false;
      try {
        const answer = (await client.call<{ 'carry-on': boolean; 'cancel-requested'?: boolean }>('POST', jobPath(job, 'heartbeat'), { runner }))!;
        if (!answer['carry-on']) return false;
        return answer['cancel-requested'] ? 'cancel' : true;
      } catch (e) {
        if (e instanceof TokenRefused) return false;
        throw e;
      }
    },
    async planned(job, r) {
      await client.call('POST', jobPath(job, 'planned'), {
        runner: runnerOf(job),
        'plan-file': b64(r.planFile),
        'plan-json': r.planJson.toString('utf8'),
        counts: r.counts,
        'has-changes': r.hasChanges,
      });
    },
    async applied(job, r) {
      await client.call('POST', jobPath(job, 'applied'), { runner: runnerOf(job), state: r.state ? b64(r.state) : null, counts: r.counts });
    },
    async failed(job, reason, state) {
      await client.call('POST', jobPath(job, 'failed'), { runner: runnerOf(job), reason: reason.slice(0, 1000) || 'failed', state: state ? b64(state) : null });
    },
  };
}
