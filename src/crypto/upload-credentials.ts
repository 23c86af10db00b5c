// Upload URLs that carry their own permission: Terraform and go-tfe PUT state files,
// configuration tarballs and policy set archives to them with no Authorization header. The
// credential is signed rather than random and stored, so nothing secret is kept in the
// database, every instance holding the encryption keys can check it, and checking it costs no
// query (it runs before a body is read).
// It names one purpose and one subject (a version, and for state the kind of file) and an
// expiry; whether it may be used again is the caller's to decide, by the status or stored bytes
// of its version (a state URL is single use, a configuration URL takes a later upload).
//
// Statuses, the same for both kinds of URL: a credential Hangar did not sign for this purpose and
// subject, a malformed one and an expired one are all 404, as TFE's archivist answers for an
// object it does not know (Terraform and go-tfe only PUT and look for success, so nothing finer
// helps them, and a uniform 404 tells a guesser nothing). A URL that checks out but whose
// version takes no more bytes (a state version already written; a configuration version no
// longer pending or uploaded) is 409 (`uploadUsedUp`): only a holder of a genuine URL can get
// that far.
import { errors } from '../jsonapi/errors.ts';
import type { Keyring } from './keyring.ts';

/** Each purpose signs under a key of its own, so a credential for one never opens another. */
export type UploadPurpose = 'state-upload' | 'configuration-upload' | 'policy-set-version-upload' | 'job-log';

/** `<expiry, ms since the epoch>.<HMAC-SHA-256, base64url>`: no dot in either half. */
const CREDENTIAL = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

// The expiry comes last and is all digits, so no subject can be made to read as another's.
const message = (subject: string, expires: number) => `${subject}:${expires}`;

/** A credential for one upload of `subject`, good for `ttlMs` from `at`. */
export function issueUploadCredential(keyring: Keyring, purpose: UploadPurpose, subject: string, ttlMs: number, at = Date.now()): string {
  const expires = at + ttlMs;
  return `${expires}.${keyring.sign(purpose, message(subject, expires))}`;
}

/** Throws the 404 above unless `credential` was issued for this purpose and subject and is unexpired at `at`. */
export function checkUploadCredential(keyring: Keyring, purpose: UploadPurpose, subject: string, credential: string, at = Date.now()): void {
  const parts = CREDENTIAL.exec(credential);
  const expires = parts ? Number(parts[1]) : 0;
  if (!parts || expires <= at || !keyring.verify(purpose, message(subject, expires), parts[2]!)) throw errors.notFound();
}

/** A genuine upload URL whose version takes no more bytes. */
export const uploadUsedUp = () => errors.conflict('This upload URL has been used already');
