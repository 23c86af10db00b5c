// A browser without a browser, for page tests: a person signed in through the sign-in form, with
// their cookies, who GETs pages and POSTs forms (with the page's CSRF token, or without it to
// prove the refusal). test/helpers/browser.ts drives real Chromium for the few end-to-end tests.
import type { TestContext } from './harness.ts';

export const PASSWORD = 'a perfectly long password';
const FORM = 'application/x-www-form-urlencoded';

export interface PageResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  location: string | undefined;
}

/** The value of every `name="_csrf"` hidden field in a page (the first one). */
export function csrfOf(page: string): string {
  const match = /name="_csrf" value="([^"]*)"/.exec(page);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

function setCookies(headers: PageResponse['headers']): string[] {
  const set = headers['set-cookie'];
  return set === undefined ? [] : Array.isArray(set) ? set : [String(set)];
}

export class WebClient {
  readonly ctx: TestContext;
  readonly cookies = new Map<string, string>();
  readonly address: string;

  constructor(ctx: TestContext, address = '127.0.0.1') {
    this.ctx = ctx;
    this.address = address;
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  #keep(headers: PageResponse['headers']): void {
    for (const line of setCookies(headers)) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(url: string): Promise<PageResponse> {
    const res = await this.ctx.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader }, remoteAddress: this.address });
    this.#keep(res.headers);
    return { status: res.statusCode, headers: res.headers, body: res.body, location: res.headers.location as string | undefined };
  }

  /** POSTs a form; `csrf`: the token to send (by default the one on the page at `from`, or none with null). */
  async post(url: string, fields: Record<string, string | string[]>, options: { csrf?: string | null; from?: string } = {}): Promise<PageResponse> {
    let token = options.csrf;
    if (token === undefined) token = csrfOf((await this.get(options.from ?? '/app/organizations')).body);
    const params = new URLSearchParams();
    if (token !== null) params.append('_csrf', token);
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) params.append(k, one);
    const res = await this.ctx.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader, 'content-type': FORM },
      payload: params.toString(),
      remoteAddress: this.address,
    });
    this.#keep(res.headers);
    return { status: res.statusCode, headers: res.headers, body: res.body, location: res.headers.location as string | undefined };
  }

  /** Signs in through the sign-in form (the password must be set); returns the final answer. */
  async signIn(username: string, password = PASSWORD, returnTo?: string): Promise<PageResponse> {
    const form = await this.get('/app/sign-in');
    return this.post('/app/sign-in', { username, password, ...(returnTo ? { return_to: returnTo } : {}) }, { csrf: csrfOf(form.body) });
  }
}

/** A new user with a password, signed in through the form. */
export async function signedIn(ctx: TestContext, options: { siteAdmin?: boolean; name?: string } = {}) {
  const user = await ctx.user(options);
  await ctx.services.users.setPassword(user.username, PASSWORD);
  const client = new WebClient(ctx);
  const res = await client.signIn(user.username);
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.body.slice(0, 300)}`);
  return { user, client };
}

/** A new organization whose owner has a password and is signed in through the form. */
export async function signedInOwner(ctx: TestContext) {
  const org = await ctx.organization();
  await ctx.services.users.setPassword(org.owner.username, PASSWORD);
  const client = new WebClient(ctx);
  const res = await client.signIn(org.owner.username);
  if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.body.slice(0, 300)}`);
  return { org, client };
}
