/** ISO 8601 UTC with milliseconds: `2026-11-22T10:04:05.123Z`. */
export function now(): string {
  return new Date().toISOString();
}
