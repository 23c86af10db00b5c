// Where to go after signing in. Only a path of Hangar's own web UI is followed: an absolute URL,
// a scheme-relative `//host`, a backslash (which browsers read as a slash) or anything outside
// /app falls back to the start page, so the sign-in form cannot be made to send people elsewhere.
export const START_PAGE = '/app';

export function safeReturnTo(given: string | null | undefined): string {
  if (!given || given.length > 2048) return START_PAGE;
  if (!given.startsWith('/') || given.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(given)) return START_PAGE;
  let url: URL;
  try {
    url = new URL(given, 'http://hangar.invalid');
  } catch {
    return START_PAGE;
  }
  if (url.origin !== 'http://hangar.invalid') return START_PAGE;
  if (url.pathname !== '/app' && !url.pathname.startsWith('/app/')) return START_PAGE;
  return url.pathname + url.search;
}
