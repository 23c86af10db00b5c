// HTML built from tagged templates: every interpolated value is escaped unless it is already
// Html (made by `html` itself, or by `trusted` for a constant of our own). So a name holding
// `<script>` or a quote is text wherever it lands, in an element or in a quoted attribute.
// Attributes must always be quoted in templates: escaping covers quotes, not bare attributes.

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const SPECIAL = /[&<>"']/g;
// Without the global flag: `test` on a global expression would carry its position between calls.
const HAS_SPECIAL = /[&<>"']/;

/** Text made safe for an element's content or a quoted attribute value. */
export function escape(text: string): string {
  return HAS_SPECIAL.test(text) ? text.replace(SPECIAL, (c) => ESCAPES[c]!) : text;
}

/** A value as markup: Html as is, arrays joined, nothing for null/undefined/false, the rest escaped text. */
function piece(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(piece).join('');
  return escape(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Markup written by Hangar itself (a constant), never a value that came from a request or the database. */
export const trusted = (text: string) => new Html(text);

/**
 * A path with every interpolated value percent-encoded as one segment or query value:
 * path`/app/${org}/projects/${id}` can never gain a segment, a scheme or a host from a name.
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += encodeURIComponent(String(values[i])) + strings[i + 1]!;
  return out;
}

/** `path?key=value&…` for the given query values, leaving out empty ones. */
export function withQuery(base: string, query: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `${base}?${text}` : base;
}
