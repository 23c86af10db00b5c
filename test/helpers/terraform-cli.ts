// What the end-to-end tests with the real Terraform CLI share: whether they can run on this
// machine, and a JSON:API request to the Hangar process they start over HTTPS with a certificate
// authority of their own.
import { spawnSync } from 'node:child_process';
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
