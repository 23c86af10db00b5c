// Checks on a request body's raw JSON text, before and after parsing, that cost one linear pass
// and allocate nothing: a megabyte of hostile JSON costs no more than a megabyte of honest JSON.

/** Deeper than any real TFE document (a handful of levels), shallow enough for any recursion. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** True when the character at `index` is escaped: an odd number of backslashes precede it. */
function escaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let j = index - 1; j >= 0 && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * True when objects and arrays in `text` nest deeper than `limit`. Brackets inside strings do not
 * count; a string is skipped with indexOf to its closing quote. Malformed text is left for the
 * parser to refuse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      do i = text.indexOf('"', i + 1);
      while (i > 0 && escaped(text, i));
      if (i < 0) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * True when valid JSON text holds a NUL character. JSON cannot hold a raw control character, so
 * a NUL can only be the escape `\u0000`, and only where its backslash is not itself escaped:
 * `\\u0000` is a backslash followed by the text "u0000".
 */
export function mayHoldNul(text: string): boolean {
  for (let i = text.indexOf('\\u0000'); i >= 0; i = text.indexOf('\\u0000', i + 1)) {
    if (!escaped(text, i)) return true;
  }
  return false;
}

/** The JSON pointer of the first string (member name or value) in `value` holding a NUL. */
export function nulPointer(value: unknown, pointer = ''): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? pointer : null;
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = nulPointer(k, pointer) ?? nulPointer(v, `${pointer}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      if (found !== null) return found;
    }
  }
  return null;
}
