import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { SortParam } from '../jsonapi/query.ts';
import { Document, ListDocument, Resource, StringOrNull, Timestamp, TimestampOrNull, ToOne, ToOneOrNone } from '../jsonapi/schemas.ts';

export const TokenParams = Type.Object({ token_id: Type.String() });

/** Unpaginated unless a page parameter is given. */
export const ListUserTokensQuery = Type.Object({ ...PageParams });

const NullableString = (options: { maxLength: number }) => Type.Union([Type.String(options), Type.Null()]);

// go-tfe's token create options carry no JSON:API type, so it sends `"type": ""`.
const NoType = Type.Literal('');
/** Organization and team token bodies: TFE's documentation names the singular type too. */
const AnyTokenType = Type.Union([Type.Literal('authentication-token'), Type.Literal('authentication-tokens'), NoType]);

export const CreateUserTokenBody = Type.Object({
  data: Type.Object({
    type: Type.Union([Type.Literal('authentication-tokens'), NoType]),
    attributes: Type.Optional(
      Type.Object({
        description: Type.Optional(NullableString({ maxLength: 255 })),
        'expired-at': Type.Optional(NullableString({ maxLength: 64 })),
      }),
    ),
  }),
});

/** TFE's organization token type is singular: `authentication-token`. */
export const CreateOrganizationTokenBody = Type.Object({
  data: Type.Object({
    type: AnyTokenType,
    attributes: Type.Optional(Type.Object({ 'expired-at': Type.Optional(NullableString({ maxLength: 64 })) })),
  }),
});

export const TeamTokenParams = Type.Object({ team_id: Type.String() });

/** go-tfe sends `"type": ""`; TFE's documentation names `authentication-token`. */
export const CreateTeamTokenBody = Type.Object({
  data: Type.Object({
    type: AnyTokenType,
    attributes: Type.Optional(Type.Object({ 'expired-at': Type.Optional(NullableString({ maxLength: 64 })) })),
  }),
});

/**
 * One of a team's tokens beside the others: `description` is required (it may be empty) and
 * unique within the team; a token without one is the legacy token of `/authentication-token`.
 */
export const CreateDescribedTeamTokenBody = Type.Object({
  data: Type.Object({
    type: AnyTokenType,
    attributes: Type.Object({
      description: Type.String({ maxLength: 255 }),
      'expired-at': Type.Optional(NullableString({ maxLength: 64 })),
    }),
  }),
});

export const ListTeamTokensQuery = Type.Object({
  ...PageParams,
  q: Type.Optional(Type.String({ maxLength: 255, description: "part of the team's name, any case" })),
  sort: SortParam(['team-name', 'created-by', 'expired-at', 'last-used-at']),
});

/** Which of an organization's two tokens: absent, the organization token; `audit-trails`, the audit-trail token. */
export const OrganizationTokenQuery = Type.Object({
  token: Type.Optional(Type.Enum(['audit-trails'], { description: 'audit-trails (or absent, for the organization token)' })),
});

// ---- responses

export const TokenResource = Resource('Token', 'authentication-tokens', {
  attributes: {
    'created-at': Timestamp,
    'last-used-at': TimestampOrNull,
    description: StringOrNull(),
    token: StringOrNull({ description: 'the secret: only in the answer that creates the token, null ever after' }),
    'expired-at': TimestampOrNull,
  },
  relationships: { 'created-by': ToOneOrNone('users'), team: Type.Optional(ToOne('teams')) },
  links: false,
});

export const TokenDocument = Document(TokenResource, 'The token');
export const CreatedTokenDocument = Document(TokenResource, 'The new token, with its secret in `token` (shown this once)');
export const TokenListDocument = ListDocument(TokenResource, 'The tokens (every one, unless a page is asked for)', { paginated: 'when-asked' });
export const TokenPageDocument = ListDocument(TokenResource, 'A page of the tokens', { paginated: 'always' });
