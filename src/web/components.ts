// The pieces pages are made of: forms (each with its CSRF token), labelled fields with their
// errors, tables, the pager. Each takes plain values and escapes them (html.ts).
import { ApiError } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { CSRF_FIELD } from './csrf.ts';
import { html, withQuery, type Html } from './html.ts';

/** A field's problem, by field name (the last segment of the error's JSON pointer). */
export type FieldErrors = Record<string, string>;

/**
 * The errors of a refused write, by field: `/data/attributes/auto-destroy-activity-duration`
 * becomes `auto-destroy-activity-duration`. Errors without a pointer go under `''` (the form).
 */
export function fieldErrors(error: ApiError): FieldErrors {
  const out: FieldErrors = {};
  for (const e of error.errors) {
    const key = e.source?.pointer?.split('/').pop() ?? '';
    out[key] = out[key] ? `${out[key]}; ${e.detail ?? e.title}` : (e.detail ?? e.title);
  }
  return out;
}

/** Whether a refusal is the caller's to fix in the form (422, 409, 400), not a missing page or a fault. */
export const isFormError = (e: unknown): e is ApiError => e instanceof ApiError && (e.status === 422 || e.status === 409 || e.status === 400);

export interface FormOptions {
  action: string;
  csrf: string;
  body: Html | Html[];
  /** The submit button's text; none: the body has its own buttons. */
  submit?: string;
  /** Asked (by app.js) before sending: for deletions. */
  confirm?: string;
  danger?: boolean;
  className?: string;
  /** Errors not tied to one field, shown above the fields. */
  error?: string;
  label?: string;
}

/** A POST form with its CSRF token. */
export function form(o: FormOptions): Html {
  return html`<form
    method="post"
    action="${o.action}"
    class="${o.className ?? 'stack'}"
    ${o.confirm ? html` data-confirm="${o.confirm}"` : ''}${o.label ? html` aria-label="${o.label}"` : ''}
  >
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}" />
    ${o.error ? html`<p class="error-text" role="alert">${o.error}</p>` : ''} ${o.body}
    ${o.submit ? html`<div class="actions"><button type="submit" ${o.danger ? html` class="danger"` : ''}>${o.submit}</button></div>` : ''}
  </form>`;
}

/** A one-button form (delete, unlock, discard…). */
export function button(o: {
  action: string;
  csrf: string;
  label: string;
  confirm?: string;
  danger?: boolean;
  fields?: Record<string, string>;
  accessibleLabel?: string;
}): Html {
  return html`<form method="post" action="${o.action}" class="inline" ${o.confirm ? html` data-confirm="${o.confirm}"` : ''}>
    <input type="hidden" name="${CSRF_FIELD}" value="${o.csrf}" />
    ${Object.entries(o.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" class="${o.danger ? 'danger' : 'secondary'}" ${o.accessibleLabel ? html` aria-label="${o.accessibleLabel}"` : ''}>${o.label}</button>
  </form>`;
}

let fieldCounter = 0;
const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}-${(fieldCounter = (fieldCounter + 1) % 1e6)}`;

export interface FieldOptions {
  label: string;
  name: string;
  value?: string | null;
  type?: 'text' | 'password' | 'email' | 'number' | 'search' | 'textarea';
  hint?: string;
  error?: string;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
}

/** A labelled input whose hint and error are tied to it for screen readers. */
export function field(o: FieldOptions): Html {
  const id = fieldId(o.name);
  const hintId = o.hint ? `${id}-hint` : '';
  const errorId = o.error ? `${id}-error` : '';
  const described = [hintId, errorId].filter(Boolean).join(' ');
  const common = html`id="${id}"
  name="${o.name}"${described ? html` aria-describedby="${described}"` : ''}${o.error ? html` aria-invalid="true"` : ''}${
    o.required ? html` required` : ''
  }${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}`;
  const control =
    o.type === 'textarea'
      ? html`<textarea ${common}>${o.value ?? ''}</textarea>`
      : html`<input type="${o.type ?? 'text'}" ${common} value="${o.value ?? ''}" />`;
  return html`<div class="field">
    <label for="${id}">${o.label}</label>
    ${o.hint ? html`<p class="hint" id="${hintId}">${o.hint}</p>` : ''} ${o.error ? html`<p class="error-text" id="${errorId}">${o.error}</p>` : ''} ${control}
  </div>`;
}

export function select(o: { label: string; name: string; value?: string | null; options: Array<[string, string]>; hint?: string; error?: string }): Html {
  const id = fieldId(o.name);
  const errorId = o.error ? `${id}-error` : '';
  const hintId = o.hint ? `${id}-hint` : '';
  const described = [hintId, errorId].filter(Boolean).join(' ');
  return html`<div class="field">
    <label for="${id}">${o.label}</label>
    ${o.hint ? html`<p class="hint" id="${hintId}">${o.hint}</p>` : ''} ${o.error ? html`<p class="error-text" id="${errorId}">${o.error}</p>` : ''}
    <select id="${id}" name="${o.name}" ${described ? html` aria-describedby="${described}"` : ''}${o.error ? html` aria-invalid="true"` : ''}>
      ${o.options.map(([value, label]) => html`<option value="${value}" ${value === o.value ? html` selected` : ''}>${label}</option>`)}
    </select>
  </div>`;
}

/** A list page's search box: a GET form that sends `q` back to the list. */
export function searchForm(o: { action: string; id: string; label: string; value: string | undefined }): Html {
  return html`<form method="get" action="${o.action}" class="toolbar" role="search">
    <div class="field grow"><label for="${o.id}">${o.label}</label><input type="search" id="${o.id}" name="q" value="${o.value ?? ''}" /></div>
    <button type="submit" class="secondary">Search</button>
  </form>`;
}

export function checkbox(o: { label: string; name: string; checked?: boolean; value?: string; hint?: string }): Html {
  const id = fieldId(o.name);
  return html`<div class="field">
    <div class="check">
      <input
        type="checkbox"
        id="${id}"
        name="${o.name}"
        value="${o.value ?? 'true'}"
        ${o.checked ? html` checked` : ''}${o.hint ? html` aria-describedby="${id}-hint"` : ''}
      />
      <label for="${id}">${o.label}</label>
    </div>
    ${o.hint ? html`<p class="hint" id="${id}-hint">${o.hint}</p>` : ''}
  </div>`;
}

/** A table with a caption (for screen readers, visible or not) and header cells. */
export function table(o: { caption: string; head: string[]; rows: unknown[][]; empty?: string; captionHidden?: boolean }): Html {
  if (o.rows.length === 0) return html`<p class="muted">${o.empty ?? 'Nothing here yet.'}</p>`;
  return html`<div class="table-wrap">
    <table>
      <caption${o.captionHidden ? html` class="visually-hidden"` : ''}>${o.caption}</caption>
      <thead>
        <tr>
          ${o.head.map((h) => html`<th scope="col">${h}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${o.rows.map(
          (r) =>
            html`<tr>
              ${r.map((c) => html`<td>${c}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * Previous / next links and where in the list this page is. `query` is the list's other query
 * values (search, filters, sort), kept on every link; `page` is the window the page read.
 */
export function pager(o: { base: string; query: Record<string, string | undefined>; page: Page; total: number; noun?: string }): Html {
  const { number } = o.page;
  const pages = Math.max(1, Math.ceil(o.total / o.page.size));
  const link = (n: number) => withQuery(o.base, { ...o.query, page: n > 1 ? n : undefined });
  return html`<nav class="pager" aria-label="Pages">
    ${number > 1 ? html`<a href="${link(number - 1)}" rel="prev">Previous page</a>` : ''}
    <span>Page ${number} of ${pages} (${o.total} ${o.noun ?? 'in all'})</span>
    ${number < pages ? html`<a href="${link(number + 1)}" rel="next">Next page</a>` : ''}
  </nav>`;
}

/**
 * The window of a list a page shows: page `value` (the query's `page`; 1 when absent or not a
 * positive integer) of `size` rows. Every page reads its list and draws its pager from this one
 * window, so the rows shown and the pager's links cannot disagree.
 */
export function listPage(value: string | number | undefined, size = 20): Page {
  const n = Number(value);
  const number = Number.isInteger(n) && n >= 1 && n <= 1e9 ? n : 1;
  return { number, size, offset: (number - 1) * size };
}

/** The first `size` rows of a list: a form's choices, a page's short lists. */
export const firstRows = (size: number): Page => listPage(1, size);

/** A timestamp for people, with the exact value in a <time> element. */
export function when(iso: string | null | undefined): Html | string {
  if (!iso) return '—';
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}
