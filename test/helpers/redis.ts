// Redis for the rate-limit tests: the shared one named by HANGAR_TEST_REDIS_URL (each test run
// keeps to keys of its own prefix), and private redis-server processes a test may stop.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { randomBase62 } from '../../src/ids.ts';

export const REDIS_URL = process.env.HANGAR_TEST_REDIS_URL;
export const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;

/** A key prefix no other test run uses. */
export const uniquePrefix = () => `hangar-test:${randomBase62(10)}:`;

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Starts `redis-server` on `port` (a free one by default) and waits until it answers. */
export async function startRedis(port?: number): Promise<PrivateRedis> {
  const p = port ?? (await freePort());
  const child: ChildProcess = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${p}`;
  const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => {});
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (error) {
      if (attempt > 100 || child.exitCode !== null) throw new Error(`redis-server did not start on ${p}: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  probe.disconnect();
  return {
    url,
    port: p,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
