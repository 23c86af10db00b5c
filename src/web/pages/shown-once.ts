// A new token's secret, on the answer to the POST that made it and nowhere else: not in a flash,
// a URL or a later page, since Hangar keeps only its digest. The copy button is app.js's
// (`data-copy`); it stays hidden where scripts do not run, and the text can be selected by hand.
import { html, type Html } from '../html.ts';

let counter = 0;

/** `subsection`: the block sits under a section's own heading (an h2), so its heading is an h3. */
export function shownOnce(o: { secret: string; what: string; after?: Html | string; subsection?: boolean }): Html {
  const id = `secret-${(counter = (counter + 1) % 1e6)}`;
  const title = o.subsection ? html`<h3 id="${id}-title">Your new ${o.what}</h3>` : html`<h2 id="${id}-title">Your new ${o.what}</h2>`;
  return html`<section class="shown-once" aria-labelledby="${id}-title">
    ${title}
    <p>Copy it now: it is shown only this once. Hangar keeps no copy it could show again.</p>
    <p class="secret" id="${id}" data-secret>${o.secret}</p>
    <p>
      <button type="button" class="secondary" data-copy="${id}" hidden>Copy to clipboard</button>
      <span class="copied" role="status" aria-live="polite"></span>
    </p>
    ${o.after ?? ''}
  </section>`;
}
