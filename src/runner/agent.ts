// `hangar agent`: a runner on another machine. It registers in its token's pool, reports its
// status, long-polls /api/agent for the pool's jobs and executes each with executeJob over the
// HTTP job port (remote.ts), exactly as the server's own workers do in-process. SIGTERM drains
// it (the jobs in hand finish, no new one is claimed); a refused token stops it within seconds.
import { ConfigError, type Config } from '../config.ts';
import { executeJob, type ExecuteOptions } from './execute.ts';
import { agentClient, ProtocolError, remoteJobPort, TokenRefused } from './remote.ts';
import { terraformSettings, terraformVersion } from './terraform.ts';

export interface AgentSettings {
  url: string;
  token: string;
  name: string | null;
  concurrency: number;
  execute: Omit<ExecuteOptions, 'runner'>;
}

/** How often the agent reports its status (and so learns of a revoked token). */
export const STATUS_MS = 2_000;
/** How long one claim waits on the server for a job. */
const CLAIM_WAIT_SECONDS = 10;
/** After a refused token: how long the jobs in hand get to stop before the process leaves anyway. */
const REFUSED_GRACE_MS = 15_000;

/** The agent's settings from the configuration; a missing or malformed one is one line naming it. */
export function agentSettings(config: Config, path: string): AgentSettings {
  const { url, token, name, concurrency } = config.agent;
  if (!url) throw new ConfigError('HANGAR_AGENT_URL is not set; set it to the address of Hangar, e.g. https://hangar.example.com');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`HANGAR_AGENT_URL is not a URL: "${url}"; expected e.g. https://hangar.example.com`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new ConfigError(`HANGAR_AGENT_URL must be an http:// or https:// address, got "${url}"`);
  if (!token)
    throw new ConfigError("HANGAR_AGENT_TOKEN is not set; create an agent token of the agent's pool (POST /api/v2/agent-pools/:id/authentication-tokens)");
  if (name !== null && name.length > 255) throw new ConfigError('HANGAR_AGENT_NAME is longer than 255 characters');
  return {
    url: parsed.origin + parsed.pathname.replace(/\/+$/, ''),
    token,
    name,
    concurrency,
    execute: { settings: terraformSettings(config, path), timeoutMs: config.runTimeoutMs, maxLogBytes: config.runMaxLogBytes },
  };
}

export interface AgentProcess {
  /** Resolves with the exit code once the agent has stopped. */
  done: Promise<number>;
  /** Drains: the jobs in hand finish, nothing more is claimed. */
  drain(): void;
}

export function startAgent(settings: AgentSettings, say: (line: string) => void): AgentProcess {
  let draining = false;
  let refusedAt: number | null = null;
  let active = 0;
  /** runner → its claim in flight, aborted when the agent drains. */
  const claims = new Map<string, AbortController>();
  let wake: () => void = () => {};
  let agentId: string | null = null;

  const stopClaiming = () => {
    draining = true;
    for (const c of claims.values()) c.abort();
    wake();
  };
  const client = agentClient(settings.url, settings.token, () => {
    refusedAt = Date.now();
    say('error: Hangar refused the agent token (revoked, or its pool deleted); stopping');
    stopClaiming();
  });
  const port = remoteJobPort(client, { waitSeconds: CLAIM_WAIT_SECONDS, claimSignal: (runner) => claims.get(runner)?.signal });

  /** Waits `ms`, or less when the agent starts draining. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const previous = wake;
      wake = done;
      function done() {
        clearTimeout(timer);
        wake = previous;
        resolve();
      }
    });

  async function report(status: 'idle' | 'busy' | 'exited' | 'errored'): Promise<void> {
    if (!agentId) return;
    await client.call('POST', 'status', { id: agentId, status });
  }

  async function slot(n: number): Promise<void> {
    const runner = `${agentId}/${n}`;
    while (!draining) {
      const controller = new AbortController();
      claims.set(runner, controller);
      try {
        const job = await port.claim(runner);
        claims.delete(runner);
        if (!job) continue;
        active++;
        say(`running the ${job.phase} of run ${job.runId} (job ${job.id})`);
        void report('busy').catch(() => {});
        try {
          await executeJob(port, job, { ...settings.execute, runner });
        } finally {
          active--;
          say(`done with job ${job.id}`);
          if (active === 0 && !draining) void report('idle').catch(() => {});
        }
      } catch (e) {
        claims.delete(runner);
        if (draining || e instanceof TokenRefused) break;
        say(`warning: ${e instanceof ProtocolError ? e.message : `cannot reach Hangar at ${settings.url}: ${(e as Error).message}`}; retrying`);
        await pause(2_000);
      }
    }
  }

  const done = (async (): Promise<number> => {
    void terraformVersion(settings.execute.settings);
    try {
      const registered = await client.call<{ id: string; 'agent-pool-id': string }>('POST', 'register', settings.name ? { name: settings.name } : {});
      agentId = registered!.id;
      say(`registered as ${agentId} in agent pool ${registered!['agent-pool-id']}${settings.name ? ` (${settings.name})` : ''}; waiting for jobs`);
    } catch (e) {
      if (e instanceof TokenRefused) say('error: Hangar refused HANGAR_AGENT_TOKEN; check that it is an agent token that has not been revoked');
      else if (e instanceof ProtocolError) say(`error: registering failed: ${e.message}`);
      else say(`error: cannot reach Hangar at ${settings.url} (HANGAR_AGENT_URL): ${(e as Error).message}`);
      return 1;
    }
    // The status report doubles as the token's check: a revocation is seen within STATUS_MS.
    const beat = setInterval(() => {
      if (refusedAt === null) void report(active > 0 ? 'busy' : 'idle').catch(() => {});
    }, STATUS_MS);
    const slots = Promise.all(Array.from({ length: settings.concurrency }, (_, n) => slot(n)));
    // Refused: the jobs in hand learn it at their next heartbeat and stop their terraform; the
    // agent leaves when they have, or after a grace period whatever they do.
    const refusal = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (refusedAt !== null && Date.now() - refusedAt > REFUSED_GRACE_MS) {
          clearInterval(check);
          resolve();
        }
      }, 500);
      void slots.then(() => {
        clearInterval(check);
        resolve();
      });
    });
    await refusal;
    clearInterval(beat);
    if (refusedAt !== null) return 1;
    await report('exited').catch(() => {});
    say('stopped');
    return 0;
  })();

  return {
    done,
    drain() {
      if (draining) return;
      say(active > 0 ? `draining: finishing ${active} job(s) in hand, claiming no more` : 'draining: no job in hand');
      stopClaiming();
    },
  };
}
