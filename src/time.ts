/** ISO 8601 UTC with milliseconds: `2026-11-22T10:04:05.123Z`. */
export function now(): string {
  return new Date().toISOString();
}

let stampedAt = NaN;
let stamp = '';

/**
 * `new Date(ms).toISOString()`, remembered for the last millisecond asked: an endpoint that
 * stamps thousands of answers a second (the agent heartbeat) formats each millisecond once.
 */
export function isoAt(ms: number): string {
  if (ms !== stampedAt) {
    stamp = new Date(ms).toISOString();
    stampedAt = ms;
  }
  return stamp;
}
