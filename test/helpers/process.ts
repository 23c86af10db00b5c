// Starting the real `hangar` process, for the few tests that talk to it over a socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const MAIN = path.resolve(import.meta.dirname, '../../src/main.ts');

/** Runs `hangar <args>` to completion. */
export function hangar(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `hangar serve` on a free port and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    // Rate limits off unless a test asks: the robustness suite writes as fast as it can.
    env: { ...process.env, HANGAR_PORT: '0', HANGAR_LOG_LEVEL: 'info', HANGAR_RATE_LIMIT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', () => reject(new Error(`server exited:\n${output}`)));
  });
  return {
    child,
    url,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
