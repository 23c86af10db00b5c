// What the end-to-end tests with the real Terraform CLI share: whether they can run on this
// machine, and a JSON:API request to the Hangar process they start over HTTPS with a certificate
// authority of their own.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { hasOpenssl } from './tls.ts';

/** Why the end-to-end tests cannot run here (no terraform, no openssl), or false when they can. */
export function terraformE2eSkip(): string | false {
  const version = spawnSync('terraform', ['version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) return 'terraform is not installed (put Terraform 1.11 on PATH to run the end-to-end tests)';
  if (!hasOpenssl()) return 'the openssl command is not installed (the test makes its own certificate authority with it)';
  return false;
}

export interface TlsAnswer {
  status: number;
  /** A JSON body parsed; any other body as its text; undefined when there is none. */
  body: any;
  raw: string;
}

/** A request to the server as `token`, trusting the test's CA; a string body is sent as it is. */
export function tlsApi(url: string, method: string, token: string, ca: Buffer, body?: unknown, contentType = 'application/vnd.api+json'): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : text.startsWith('{') ? JSON.parse(text) : text, raw: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

export interface TerraformResult {
  status: number | null;
  /** Standard output and standard error, interleaved as they came. */
  out: string;
}

/** `terraform <args>` in `dir` with `env`, asynchronously (the server may run in this test's process tree); killed after 3 minutes. */
export function runTerraform(dir: string, args: string[], env: NodeJS.ProcessEnv): Promise<TerraformResult> {
  return new Promise((resolve) => {
    const child = spawn('terraform', args, { cwd: dir, env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

/** The output of a terraform command that must succeed (its output is the failure message otherwise). */
export async function succeeded(run: Promise<TerraformResult>): Promise<string> {
  const r = await run;
  assert.equal(r.status, 0, r.out);
  return r.out;
}
