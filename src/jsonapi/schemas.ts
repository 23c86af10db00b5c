// Response schemas: the JSON:API pieces every domain's documents are built from (resource
// envelope, relationships, links, meta.pagination, the error document). @fastify/swagger
// publishes them as the OpenAPI document; answers themselves are written with JSON.stringify
// (app.ts says why), and test/openapi.test.ts checks every endpoint's real answers against them.
//
// Every object here is open (`additionalProperties: true`), and domains keep adding attributes:
// an attribute a serializer sends and a schema forgets is still answered, and the test is what
// fails, naming it. Nullable values use type arrays rather than anyOf, which reads more plainly
// in the OpenAPI document.
import { Type, type TProperties, type TSchema } from 'typebox';

/**
 * Schemas shared by name: each resource and the error document. Routes refer to them by
 * `$ref`; the app registers them all (app.addSchema) before any route, and the OpenAPI document
 * lists them under components.schemas.
 */
const SHARED = new Map<string, TSchema>();

export function sharedSchemas(): TSchema[] {
  return [...SHARED.values()];
}

/** Registers `schema` under `name` and returns a reference to it, typed as the schema. */
function shared<T extends TSchema>(name: string, schema: T): T {
  if (SHARED.has(name)) throw new Error(`two shared response schemas are named ${name}`);
  SHARED.set(name, { ...schema, $id: name });
  return Type.Unsafe({ $ref: `${name}#` }) as unknown as T;
}

/** An object schema that serializes members it does not name (see above). */
export function Open<P extends TProperties>(properties: P, options: Record<string, unknown> = {}) {
  return Type.Object(properties, { additionalProperties: true, ...options });
}

/** `type` or null, as one type array. */
function nullable<T>(type: string, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T | null>({ type: [type, 'null'], ...options });
}

export const StringOrNull = (options: Record<string, unknown> = {}) => nullable<string>('string', options);
export const IntegerOrNull = (options: Record<string, unknown> = {}) => nullable<number>('integer', options);
export const BooleanOrNull = (options: Record<string, unknown> = {}) => nullable<boolean>('boolean', options);
/** Always null here: TFE has the attribute, Hangar has nothing to put in it. */
export const AlwaysNull = (description: string) => Type.Null({ description });

/** ISO 8601 UTC with milliseconds. */
export const Timestamp = Type.String({ format: 'date-time' });
export const TimestampOrNull = StringOrNull({ format: 'date-time' });

/** A boolean object whose members are `keys` (permissions, flags), every one always sent. */
export function Flags(keys: readonly string[], options: Record<string, unknown> = {}) {
  return Open(Object.fromEntries(keys.map((k) => [k, Type.Boolean()])), options);
}

/** A resource identifier object: what relationship data and included resources are named by. */
export const Linkage = (type: string) => Open({ id: Type.String(), type: TypeName(type) });

/**
 * The `type` member: documented as the constant it is, typed as a string, because serializers
 * build plain object literals whose `type` TypeScript widens to string.
 */
export const TypeName = (type: string) => Type.Unsafe<string>({ type: 'string', const: type });

const Related = Open({ related: Type.String() });

/** A to-one relationship as `jsonapi/relationships.ts` builds it: linkage and the related link. */
export const ToOne = (type: string) => Open({ data: Linkage(type), links: Related });

/** A to-one relationship that may be empty, with no link. */
export const ToOneOrNone = (type: string) => Open({ data: Type.Unsafe<{ id: string; type: string } | null>({ ...Linkage(type), type: ['object', 'null'] }) });

/** A to-many relationship carrying its linkage. */
export const ToMany = (type: string) => Open({ data: Type.Array(Linkage(type)) });

/** A relationship given only as a link to where the related resources are listed. */
export const RelatedLink = Open({ links: Related });

export const SelfLink = Open({ self: Type.String() });

/** A JSON:API resource object of `type`, shared as `name` (components.schemas in the document). */
export function Resource<A extends TProperties, R extends TProperties>(
  name: string,
  type: string,
  /** `links`: false for none, or members besides `self` (such as `self-html`). */
  parts: { attributes: A; relationships?: R; links?: false | TProperties; description?: string },
) {
  return shared(
    name,
    Open(
      {
        id: Type.String(),
        type: TypeName(type),
        attributes: Open(parts.attributes),
        ...(parts.relationships ? { relationships: Open(parts.relationships) } : {}),
        ...(parts.links === false ? {} : { links: parts.links ? Open({ self: Type.String(), ...parts.links }) : SelfLink }),
      },
      parts.description ? { description: parts.description } : {},
    ),
  );
}

/** A document holding one resource (create, show, update). */
export function Document(resource: TSchema, description: string, included?: TSchema) {
  return loose(Open({ data: resource, ...(included ? { included: Type.Optional(Type.Array(included)) } : {}) }, { description }));
}

/**
 * Documents are typed `unknown` for the handlers that return them: what a serializer sends is
 * checked against the schema by test/openapi.test.ts, member by member, on real responses.
 */
function loose(schema: TSchema) {
  return Type.Unsafe<unknown>(schema);
}

export const PaginationLinks = Open({
  self: Type.String(),
  first: Type.String(),
  prev: StringOrNull(),
  next: StringOrNull(),
  last: Type.String(),
});

export const Pagination = Open({
  'current-page': Type.Integer(),
  'page-size': Type.Integer(),
  'prev-page': IntegerOrNull(),
  'next-page': IntegerOrNull(),
  'total-pages': Type.Integer(),
  'total-count': Type.Integer(),
});

/** `meta['status-counts']` of lists that count what matched the filter apart from the whole. */
export const StatusCounts = Open({ total: Type.Integer(), matching: Type.Integer() });

/**
 * A list document: `data`, the absolute pagination `links` and `meta.pagination`. With
 * `paginated: 'when-asked'` (lists TFE answers whole unless a page is asked for) links and meta
 * may be absent.
 */
export function ListDocument(
  resource: TSchema,
  description: string,
  options: { meta?: TProperties; included?: TSchema; paginated?: 'always' | 'when-asked' } = {},
) {
  const links = options.paginated === 'when-asked' ? Type.Optional(PaginationLinks) : PaginationLinks;
  const metaObject = Open({ pagination: Pagination, ...options.meta });
  const meta = options.paginated === 'when-asked' ? Type.Optional(metaObject) : metaObject;
  return loose(
    Open(
      {
        data: Type.Array(resource),
        ...(options.included ? { included: Type.Optional(Type.Array(options.included)) } : {}),
        links,
        meta,
      },
      { description },
    ),
  );
}

/** One JSON:API error object, as `jsonapi/errors.ts` builds them. */
export const ErrorObject = Open({
  status: Type.String({ description: 'the HTTP status, as a string' }),
  title: Type.String(),
  detail: Type.Optional(Type.String()),
  source: Type.Optional(
    Open({
      pointer: Type.Optional(Type.String({ description: 'JSON pointer to the offending member of the request body' })),
      parameter: Type.Optional(Type.String({ description: 'the offending query parameter' })),
    }),
  ),
});

/** The JSON:API error document, shared by every route. */
shared('ErrorDocument', Open({ errors: Type.Array(ErrorObject) }, { description: 'A JSON:API error document' }));

const errorRef = (description: string) =>
  Type.Unsafe<{ errors: Array<{ status: string; title: string; detail?: string }> }>({ $ref: 'ErrorDocument#', description });

const CLIENT_ERROR = errorRef(
  'A JSON:API error document. 400 malformed request or query parameter, 401 no valid token, 403 visible but not allowed, ' +
    '404 not found or not visible to the caller, 409 conflict with the current state, 413 body over 1 MiB, 415 wrong Content-Type, ' +
    '422 invalid body (each error with source.pointer), 429 rate limit spent (see Retry-After and X-RateLimit-Reset)',
);
const SERVER_ERROR = errorRef('A JSON:API error document. 503 with Retry-After: the database could not serve the request just now; retrying is safe');

/** A 204: no body. */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'No content' });

/**
 * A route's `response` map: its success answers, and the error document for every 4xx and 5xx
 * (so that errors are serialized, and documented, through a schema too).
 */
export function responses<S extends Record<number, TSchema>>(success: S) {
  return { ...success, '4xx': CLIENT_ERROR, '5xx': SERVER_ERROR };
}
