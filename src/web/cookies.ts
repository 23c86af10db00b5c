// The web UI's own cookies beside the session's (auth/session.ts): the anonymous form token and
// the flash message. Both are HttpOnly and SameSite=Lax like the session; Secure under HTTPS.

/** The value of cookie `name` in a Cookie header, if any (the first such cookie). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** A Set-Cookie value; `maxAge` in seconds (0 removes the cookie), none: gone when the browser closes. */
export function cookie(name: string, value: string, options: { secure: boolean; path?: string; maxAge?: number }): string {
  const parts = [`${name}=${value}`, `Path=${options.path ?? '/'}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}
