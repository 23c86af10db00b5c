// HTTP plumbing shared by every JSON:API route: media types, body parsing and the single error
// handler that turns every failure into a JSON:API error document.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { isDatabaseUnavailable } from '../db/index.ts';
import { ApiError, errors, humanize, type ErrorObject } from './errors.ts';
import { MAX_JSON_DEPTH, mayHoldNul, nestsDeeperThan, nulPointer } from './json-text.ts';
import { queryError } from './query.ts';

export const MEDIA_TYPE = 'application/vnd.api+json';
/** The agent endpoints speak plain JSON; their errors keep the same `errors` array shape. */
export const PLAIN_JSON = 'application/json';

function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Whether a Content-Type header names `mediaType`; the header as clients send it is checked first, without parsing. */
function isMediaType(header: string | undefined, mediaType: string): boolean {
  return header === mediaType || mediaTypeOf(header) === mediaType;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/** Registered on the /api/v2 scope: every answer there is a JSON:API document. */
export function jsonApiResponses(app: FastifyInstance, headers: Readonly<Record<string, string>> = {}): void {
  const all = { 'content-type': MEDIA_TYPE, ...headers };
  // Hooks on the hot path of every request take a callback, not a promise: a promise per hook
  // per request is measurable next to what a cached read costs.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(all);
    done();
  });
}

/**
 * Registered after authentication, so an anonymous caller learns nothing. Writes must declare
 * the JSON:API media type (TFE answers 415 otherwise); a DELETE only when it carries a body, so
 * `curl -X DELETE` stays simple.
 */
export function requireJsonApiRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const m = request.method;
    const needsType = m === 'POST' || m === 'PATCH' || m === 'PUT' || (m === 'DELETE' && hasBody(request));
    done(needsType && !isMediaType(request.headers['content-type'], MEDIA_TYPE) ? errors.unsupportedMediaType() : undefined);
  });
}

/**
 * For a scope whose bodies are raw bytes of one media type (a policy's source): a body of any
 * other type is 415. Register after authentication, as above.
 */
export function requireMediaType(app: FastifyInstance, mediaType: string): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(hasBody(request) && !isMediaType(request.headers['content-type'], mediaType) ? errors.unsupportedMediaType(mediaType) : undefined);
  });
}

/**
 * For a scope that speaks plain JSON (the agent endpoints): a body must be `application/json`,
 * and errors are rendered with that media type. Register after authentication, as above. A
 * request without a body passes, so that an agent may register without naming itself.
 */
export function plainJsonScope(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(hasBody(request) && !isMediaType(request.headers['content-type'], PLAIN_JSON) ? errors.unsupportedMediaType(PLAIN_JSON) : undefined);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => renderError(error, request, reply, PLAIN_JSON));
  app.setNotFoundHandler((_request, reply) => sendErrors(reply, errors.notFound(), PLAIN_JSON));
}

const NUL_IN_URL = /%00|\u0000/i;

/**
 * Registered once on the root instance. PostgreSQL text cannot hold NUL and no id, name or value
 * legitimately contains one, so every URL and every JSON body (JSON:API or plain) is checked here.
 */
export function registerJsonApi(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (NUL_IN_URL.test(request.url)) return done(errors.badRequest('The request URL contains a NUL character'));
    if (request.headers.host === undefined && request.raw.httpVersion !== '1.0') return done(errors.badRequest('The request has no Host header'));
    // A URL no route matches is answered before its body is parsed, so an anonymous caller
    // cannot make Hangar buffer and parse megabytes for a 404. (Node discards the rest of the
    // body as it arrives, keeping the connection usable, as after any early answer.)
    done(request.is404 ? errors.notFound() : undefined);
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const parseChecked: typeof parseJson = (request, text, done) => {
    const body = text as string;
    // Before parsing, so nothing recursive ever meets an absurdly deep document. A text no
    // longer than the limit cannot nest deeper than it (most bodies: nothing to scan).
    if (body.length > MAX_JSON_DEPTH && nestsDeeperThan(body, MAX_JSON_DEPTH))
      return done(errors.badRequest(`The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`));
    parseJson(request, body, (error, parsed) => {
      if (error) return done(error);
      // The walk for the pointer happens only when the text shows a NUL escape.
      const pointer = mayHoldNul(body) ? nulPointer(parsed) : null;
      if (pointer !== null) return done(errors.invalidAttribute(pointer || '/', 'must not contain NUL characters'));
      done(null, parsed);
    });
  };
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(PLAIN_JSON, { parseAs: 'string' }, (request, body, done) => parseChecked(request, body as string, done));
  app.addContentTypeParser(MEDIA_TYPE, { parseAs: 'string' }, (request, body, done) => {
    // An empty body is a missing document (422 from the schema), not a JSON syntax error.
    if (body === '' || body.length === 0) return done(null, undefined);
    parseChecked(request, body as string, done);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => renderError(error, request, reply));
  app.setNotFoundHandler((_request, reply) => sendErrors(reply, errors.notFound()));
}

/** A request's own log lines (its errors) carry its id, as the request-completed line does. */
const requestLog = (request: FastifyRequest) => request.server.log.child({ reqId: request.id });

function sendErrors(reply: FastifyReply, e: ApiError, mediaType = MEDIA_TYPE): FastifyReply {
  return reply.code(e.status).header('content-type', mediaType).send({ errors: e.errors });
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before any route can see it (a
 * malformed request line or header, broken framing, headers too large, a request too slow to
 * arrive) is answered with a JSON:API error document too, and the connection is closed.
 */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'The request line and headers are larger than the server accepts']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request did not arrive in time']
        : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? [413, 'The chunk extensions are larger than the server accepts']
          : [400, 'The request is not valid HTTP/1.1'];
  const body = JSON.stringify({ errors: [{ status: String(status), title: STATUS_CODES[status]!.toLowerCase(), detail }] });
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${MEDIA_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}

/** Seconds a client is asked to wait before retrying a request the database could not serve. */
export const RETRY_AFTER_SECONDS = 1;

/** Also Fastify's `frameworkErrors` hook: router failures (bad URL, over-long parameter) too. */
export function renderError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, mediaType = MEDIA_TYPE): FastifyReply {
  const send = (e: ApiError) => sendErrors(reply, e, mediaType);
  if (error instanceof ApiError) return send(error);
  if (error.validation) {
    if (error.validationContext === 'body') return send(new ApiError(422, bodyErrors(error.validation)));
    if (error.validationContext === 'querystring') return send(queryError(error.validation, request.routeOptions.schema?.querystring as TSchema | undefined));
    const detail = error.validation.map((v) => `${v.instancePath.replace(/^\//, '') || 'parameter'} ${v.message}`).join('; ');
    return send(errors.badRequest(detail));
  }
  if (isDatabaseUnavailable(error)) {
    // Not Hangar's fault nor the client's: a dropped connection is replaced by the next
    // request, and a database that is down answers quickly thanks to the connect timeout.
    requestLog(request).warn({ err: error }, 'database unavailable');
    reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    return send(errors.unavailable());
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return send(errors.payloadTooLarge(request.routeOptions.bodyLimit));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return send(errors.unsupportedMediaType(mediaType));
  }
  const status = error.statusCode ?? 500;
  if (error.code === 'FST_ERR_BAD_URL') return send(errors.badRequest('The request URL is malformed'));
  if (status === 400) return send(errors.badRequest('The request body is not valid JSON'));
  if (status > 400 && status < 500) {
    const title = status === 429 ? 'too many requests' : status === 414 ? 'uri too long' : 'bad request';
    return send(new ApiError(status, [{ status: String(status), title }]));
  }
  // Anything else is Hangar's fault: log it (never the request body) and reveal nothing.
  requestLog(request).error({ err: error }, 'request failed');
  return send(errors.internal());
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** One JSON:API error per failing location in the body, each with its JSON pointer. */
export function bodyErrors(validation: readonly AjvError[]): ErrorObject[] {
  const byPointer = new Map<string, AjvError[]>();
  for (const v of validation) {
    const missing = v.keyword === 'required' ? `/${String(v.params.missingProperty)}` : '';
    const pointer = `${v.instancePath}${missing}` || '/data';
    const list = byPointer.get(pointer) ?? [];
    list.push(v);
    byPointer.set(pointer, list);
  }
  return [...byPointer].map(([pointer, list]) => ({
    status: '422',
    title: 'invalid attribute',
    detail: `${subject(pointer)} ${describe(list)}`,
    source: { pointer },
  }));
}

function subject(pointer: string): string {
  const attr = /^\/data\/attributes\/([^/]+)$/.exec(pointer);
  if (attr) return humanize(attr[1]!);
  return pointer.slice(1).replaceAll('/', '.');
}

function describe(list: AjvError[]): string {
  // A union (string or null, say) fails as several alternatives plus an anyOf; say it once.
  const types = [...new Set(list.filter((v) => v.keyword === 'type').map((v) => String(v.params.type)))];
  if (types.length > 0) return `must be ${types.join(' or ')}`;
  const first = list.find((v) => v.keyword !== 'anyOf') ?? list[0]!;
  if (first.keyword === 'required') return 'is required';
  if (first.keyword === 'const') return `must be ${JSON.stringify(first.params.allowedValue)}`;
  if (first.keyword === 'enum') return `must be one of ${(first.params.allowedValues as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`;
  return first.message ?? 'is invalid';
}
