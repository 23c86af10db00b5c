// Cross-site request forgery: every form carries a token a foreign site cannot know, and every
// POST under /app is refused (403) without it. SameSite=Lax already keeps the session cookie off
// other sites' POSTs; the token is the second lock, for older browsers and same-site subdomains.
//
// Signed in, the token is an HMAC of a fixed label under the session's own secret: it is tied to
// the session (a new session, a new token), needs no storage and is the same on every instance.
// The secret never leaves the HttpOnly cookie, and the HMAC does not reveal it.
// Signed out (the sign-in form), there is no session: the token is a random value the page also
// sets as a cookie, and a POST must send both, equal (double submit), which stops a foreign site
// from signing a victim into the attacker's account.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The form field every protected form carries. */
export const CSRF_FIELD = '_csrf';
/** The cookie that holds the anonymous forms' token. */
export const ANONYMOUS_CSRF_COOKIE = 'hangar_form';

export function sessionCsrfToken(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('hangar web form').digest('base64url');
}

export const newAnonymousToken = () => randomBytes(24).toString('base64url');

/** Whether `given` equals `expected`, in time that does not depend on where they differ. */
export function sameToken(given: string | null | undefined, expected: string | null | undefined): boolean {
  if (!given || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
