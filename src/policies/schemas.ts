import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { Document, ListDocument, Open, Resource, StringOrNull, Timestamp, ToMany, ToOne } from '../jsonapi/schemas.ts';

export const PolicyParams = Type.Object({ policy_id: Type.String() });

export const ListPoliciesQuery = Type.Object({
  ...PageParams,
  'search[name]': Type.Optional(Type.String()),
  // Empty: no filter.
  'filter[kind]': Type.Optional(Type.Enum(['', 'sentinel', 'opa'], { description: '"sentinel" or "opa"' })),
});

const Kind = Type.Union([Type.Literal('sentinel'), Type.Literal('opa')]);
const Level = Type.String({ maxLength: 32 });
// go-tfe sends a missing path or mode as null.
const Enforce = Type.Array(
  Type.Object({ path: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])), mode: Type.Optional(Type.Union([Level, Type.Null()])) }),
  { maxItems: 10 },
);

const optionalAttributes = {
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  query: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  enforce: Type.Optional(Enforce),
  'enforcement-level': Type.Optional(Level),
};

export const CreatePolicyBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('policies'),
    attributes: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }), kind: Type.Optional(Kind), ...optionalAttributes }),
  }),
});

/** The name and kind are fixed at creation: sent here, they are ignored like any unknown member. */
export const UpdatePolicyBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('policies'),
    attributes: Type.Optional(Type.Object(optionalAttributes)),
  }),
});

export const PolicySource = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The policy source, byte for byte as uploaded' });

export const PolicyResource = Resource('Policy', 'policies', {
  attributes: {
    name: Type.String(),
    description: StringOrNull(),
    kind: Type.String({ enum: ['sentinel', 'opa'] }),
    query: StringOrNull({ description: 'OPA only' }),
    enforce: Type.Array(Open({ path: Type.String(), mode: Type.String() }), {
      description: 'the legacy form of the level: one entry once the source is uploaded, none before',
    }),
    'enforcement-level': Type.String(),
    'policy-set-count': Type.Integer(),
    'created-at': Timestamp,
    'updated-at': Timestamp,
  },
  relationships: {
    organization: ToOne('organizations'),
    'policy-sets': ToMany('policy-sets'),
  },
  links: { upload: Type.String(), download: Type.String() },
});

export const PolicyDocument = Document(PolicyResource, 'The policy');
export const PolicyListDocument = ListDocument(PolicyResource, "A page of the organization's policies, oldest first");
