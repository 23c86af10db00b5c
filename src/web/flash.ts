// A one-time message for the page after a redirect ("Project created"). It rides in a short-lived
// cookie, is shown once and removed. It is shown as text (escaped like every value), so a cookie
// set by someone else could at most show words, never run anything.
import { cookie, readCookie } from './cookies.ts';

export interface Flash {
  kind: 'notice' | 'error';
  text: string;
}

const FLASH_COOKIE = 'hangar_flash';
const MAX_TEXT = 300;

export function flashCookie(flash: Flash, secure: boolean): string {
  const value = Buffer.from(JSON.stringify({ k: flash.kind, t: flash.text.slice(0, MAX_TEXT) })).toString('base64url');
  return cookie(FLASH_COOKIE, value, { secure, path: '/app', maxAge: 60 });
}

export const clearedFlashCookie = (secure: boolean) => cookie(FLASH_COOKIE, '', { secure, path: '/app', maxAge: 0 });

/** The flash a request carries, if any and well formed. */
export function readFlash(cookieHeader: string | undefined): Flash | null {
  const value = readCookie(cookieHeader, FLASH_COOKIE);
  if (!value) return null;
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as { k?: unknown; t?: unknown };
    if ((parsed.k !== 'notice' && parsed.k !== 'error') || typeof parsed.t !== 'string') return null;
    return { kind: parsed.k, text: parsed.t.slice(0, MAX_TEXT) };
  } catch {
    return null;
  }
}
