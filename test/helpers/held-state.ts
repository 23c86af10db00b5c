// A state server for `terraform_remote_state` (backend "http") that holds each read until the
// test releases it: a plan reading from it is busy for exactly as long as the test wants, with
// only built-in providers. Terraform waits for the read even after an interrupt, so a plan
// canceled meanwhile stops only when the read is released (or when terraform is killed).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const STATE = JSON.stringify({ version: 4, terraform_version: '1.11.4', serial: 1, lineage: 'held-state', outputs: {}, resources: [] });

export interface HeldStateServer {
  /** The `address` of the http backend. */
  url: string;
  /** Resolves when the next read arrives (or at once if one is held). */
  requested(): Promise<void>;
  /** Answers the held reads, and every later one at once. */
  release(): void;
  /** Resolves when the client of a held read went away without an answer (terraform was killed). */
  abandoned(): Promise<void>;
  /** A configuration whose plan reads from this server. */
  config(extra?: string): string;
  close(): Promise<void>;
}

export async function heldStateServer(): Promise<HeldStateServer> {
  let released = false;
  const held: ServerResponse[] = [];
  let onRequest: Array<() => void> = [];
  let onAbandon: Array<() => void> = [];
  const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(STATE);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (released) return answer(res);
    held.push(res);
    res.on('close', () => {
      if (res.writableEnded) return;
      const waiting = onAbandon;
      onAbandon = [];
      for (const w of waiting) w();
    });
    const waiting = onRequest;
    onRequest = [];
    for (const w of waiting) w();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/state`;
  return {
    url,
    requested: () => (held.some((r) => !r.writableEnded && !r.destroyed) ? Promise.resolve() : new Promise((resolve) => onRequest.push(resolve))),
    release() {
      released = true;
      for (const res of held.splice(0)) if (!res.destroyed) answer(res);
    },
    abandoned: () => new Promise((resolve) => onAbandon.push(resolve)),
    config: (extra = '') =>
      `data "terraform_remote_state" "held" {\n  backend = "http"\n  config = {\n    address = "${url}"\n  }\n}\n` +
      `resource "terraform_data" "a" {\n  input = "x"\n}\n${extra}`,
    async close() {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
