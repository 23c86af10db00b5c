// Counts the round trips between a server and PostgreSQL: a TCP relay that reads the frontend
// side of the wire protocol. Every round trip ends with a message the client must wait on: Sync
// (extended protocol, what `pg` sends for a parameterised query) or Query (simple protocol).
// Only a second, short-lived server is pointed at it: a relay in the path of the timed runs would
// slow them down.
import net from 'node:net';
import { startHangar } from './lib.ts';

export interface RoundTripCounter {
  port: number;
  /** Round trips and statements (Execute or Query messages) since the last reset. */
  counts(): { roundTrips: number; statements: number };
  reset(): void;
  close(): Promise<void>;
}

export async function startRoundTripCounter(host: string, port: number): Promise<RoundTripCounter> {
  let roundTrips = 0;
  let statements = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    let buffer = Buffer.alloc(0);
    let started = false; // the first message (startup, or an SSL request) has no type byte
    client.on('data', (chunk) => {
      upstream.write(chunk);
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          // An SSL or GSS request is answered with one byte, and the startup message follows.
          const code = buffer.readInt32BE(4);
          if (code !== 80877103 && code !== 80877104) started = true;
          buffer = buffer.subarray(length);
          continue;
        }
        if (buffer.length < 5) break;
        const length = buffer.readInt32BE(1) + 1;
        if (buffer.length < length) break;
        const type = String.fromCharCode(buffer[0]!);
        if (type === 'S' || type === 'Q') roundTrips++;
        if (type === 'E' || type === 'Q') statements++;
        buffer = buffer.subarray(length);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    counts: () => ({ roundTrips, statements }),
    reset() {
      roundTrips = 0;
      statements = 0;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface RoundTripProbe {
  label: string;
  caller?: string;
  /** A path on the server, and how to request it. */
  path: string;
  init: RequestInit;
}

/**
 * Round trips to PostgreSQL per request for each probe: a second server on the same database,
 * through the counter, answers 3 requests to warm up and then 10 counted ones, one at a time.
 */
export async function countRoundTrips<P extends RoundTripProbe>(databaseUrl: string, env: Record<string, string>, probes: P[]) {
  const target = new URL(databaseUrl);
  const counter = await startRoundTripCounter(target.hostname, Number(target.port || 5432));
  const relayed = new URL(databaseUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(counter.port);
  const server = await startHangar({ ...env, HANGAR_DATABASE_URL: relayed.toString() });
  try {
    const out: Array<P & { roundTrips: number; statements: number }> = [];
    for (const p of probes) {
      const once = async () => {
        const res = await fetch(server.url + p.path, p.init);
        const text = await res.text();
        if (!res.ok) throw new Error(`round trips, ${p.label}: ${res.status} ${text.slice(0, 300)}`);
      };
      for (let i = 0; i < 3; i++) await once();
      counter.reset();
      const n = 10;
      for (let i = 0; i < n; i++) await once();
      const c = counter.counts();
      out.push({ ...p, roundTrips: c.roundTrips / n, statements: c.statements / n });
    }
    return out;
  } finally {
    await server.stop();
    await counter.close();
  }
}
