// The one error kind services throw. The error handler (plugin.ts) renders every ApiError, and
// every other failure, as a JSON:API error document; nothing else builds error bodies.

export interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];

  constructor(status: number, errors: ErrorObject[]) {
    super(errors.map((e) => e.detail ?? e.title).join('; '));
    this.status = status;
    this.errors = errors;
  }
}

const one = (status: number, title: string, detail?: string, source?: ErrorObject['source']) =>
  new ApiError(status, [{ status: String(status), title, ...(detail ? { detail } : {}), ...(source ? { source } : {}) }]);

/** The catalogue: every status Hangar answers a client mistake with, in one place. */
export const errors = {
  badRequest: (detail: string, parameter?: string) => one(400, 'bad request', detail, parameter ? { parameter } : undefined),
  unauthorized: () => one(401, 'unauthorized'),
  forbidden: (detail?: string) => one(403, 'forbidden', detail),
  /** Same body whether the thing is absent or hidden from the caller: no enumeration. */
  notFound: () => one(404, 'not found'),
  /** `title`: the words of TFE's own refusal where clients match it (`transition not allowed`). */
  conflict: (detail: string, title = 'conflict') => one(409, title, detail),
  preconditionFailed: (detail: string) => one(412, 'precondition failed', detail),
  payloadTooLarge: (limitBytes = 1024 * 1024) => one(413, 'payload too large', `The request body is larger than ${limitBytes / (1024 * 1024)} MiB`),
  unsupportedMediaType: (expected = 'application/vnd.api+json') =>
    one(415, 'unsupported media type', `Requests with a body must use Content-Type: ${expected}`),
  /** One attribute failed validation; `pointer` is the JSON pointer into the request body. */
  invalidAttribute: (pointer: string, detail: string) => one(422, 'invalid attribute', detail, { pointer }),
  /** A unique attribute (a name, a key) whose value something else already holds. */
  taken: (attribute: string) => one(422, 'invalid attribute', `${humanize(attribute)} has already been taken`, { pointer: `/data/attributes/${attribute}` }),
  /**
   * A rule on the record as a whole failed, in the words of TFE's Rails models, which some clients
   * match exactly: go-tfe knows a team token's taken description only as title `invalid
   * attributes` and detail `Validation failed: Description has already been taken`.
   */
  validationFailed: (attribute: string, detail: string) =>
    one(422, 'invalid attributes', `Validation failed: ${detail}`, { pointer: `/data/attributes/${attribute}` }),
  invalid: (list: Array<{ pointer: string; detail: string }>) =>
    new ApiError(
      422,
      list.map(({ pointer, detail }) => ({ status: '422', title: 'invalid attribute', detail, source: { pointer } })),
    ),
  tooManyRequests: () => one(429, 'too many requests', 'You have exceeded the API rate limit'),
  /** A wrong username or password: one answer for both, so that accounts cannot be probed. */
  badCredentials: () => one(401, 'unauthorized', 'The username or password is incorrect'),
  /** Too many failed sign-ins for the account or from the address; `seconds`: until the next may be tried. */
  tooManySignIns: (seconds: number) => one(429, 'too many requests', `Too many failed sign-ins; try again in ${seconds} seconds`),
  internal: () => one(500, 'internal server error'),
  /** The database could not serve the request now; answered with Retry-After. */
  unavailable: () => one(503, 'service unavailable', 'The database is unavailable; retry the request shortly'),
};

export type Problem = { pointer: string; detail: string };

/**
 * One 422 problem per listed id that `isKnown` rejects, pointing at its own place in the body:
 * how a relationship naming absent (or another organization's) things is answered everywhere.
 */
export function unknownIds(ids: readonly string[], isKnown: (id: string) => boolean, noun: string, pointer: (i: number) => string): Problem[] {
  return ids.flatMap((id, i) => (isKnown(id) ? [] : [{ pointer: pointer(i), detail: `${noun} ${id} not found` }]));
}

/** `auto-destroy-activity-duration` → `Auto destroy activity duration`: how real TFE words details. */
export function humanize(attribute: string): string {
  const words = attribute.replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
