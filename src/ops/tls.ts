// HTTPS served by Hangar itself (HANGAR_TLS_CERT_FILE / HANGAR_TLS_KEY_FILE): the PEM files are
// read and checked once at start-up, so that a wrong path, a file of the wrong kind or a key that
// does not belong to the certificate stops start-up with one line naming the setting.
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { ConfigError, type Config } from '../config.ts';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

function read(file: string, setting: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${setting}: cannot read ${file} (${code})`);
  }
}

/** The certificate chain and key to serve, or null for plain HTTP. */
export function loadTls(config: Config): TlsFiles | null {
  if (!config.tls) return null;
  const cert = read(config.tls.certFile, 'HANGAR_TLS_CERT_FILE');
  const key = read(config.tls.keyFile, 'HANGAR_TLS_KEY_FILE');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`HANGAR_TLS_CERT_FILE: ${config.tls.certFile} holds no PEM certificate`);
  }
  try {
    createPrivateKey(key);
  } catch {
    // Never the key's content: only where it is.
    throw new ConfigError(`HANGAR_TLS_KEY_FILE: ${config.tls.keyFile} holds no PEM private key (an encrypted key needs its passphrase removed)`);
  }
  if (!certificate.checkPrivateKey(createPrivateKey(key))) {
    throw new ConfigError(`HANGAR_TLS_KEY_FILE: the key in ${config.tls.keyFile} does not belong to the certificate in ${config.tls.certFile}`);
  }
  if (new Date(certificate.validTo).getTime() < Date.now()) {
    throw new ConfigError(`HANGAR_TLS_CERT_FILE: the certificate in ${config.tls.certFile} expired on ${certificate.validTo}`);
  }
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new ConfigError(`HANGAR_TLS_CERT_FILE: ${config.tls.certFile} cannot be served (${(e as Error).message})`);
  }
  return { cert, key };
}
