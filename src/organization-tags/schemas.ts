import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import { ListDocument, Resource, Timestamp, ToOne } from '../jsonapi/schemas.ts';

const MAX_ITEMS = 100;
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const TagParams = Type.Object({ tag_id: Type.String() });

export const ListOrganizationTagsQuery = Type.Object({
  ...PageParams,
  q: Type.Optional(Type.String()),
  'filter[exclude][taggable][id]': Type.Optional(Type.String()),
});

/** The tags to delete, by id (go-tfe's body: the list of resource identifiers is `data`). */
export const TagRefsBody = Type.Object({ data: Type.Array(Type.Object({ type: Type.Literal('tags'), id: Id }), { minItems: 1, maxItems: MAX_ITEMS }) });
/** The workspaces to add a tag to. */
export const WorkspaceRefsBody = Type.Object({
  data: Type.Array(Type.Object({ type: Type.Literal('workspaces'), id: Id }), { minItems: 1, maxItems: MAX_ITEMS }),
});

// ---- responses

export const OrganizationTagResource = Resource('OrganizationTag', 'tags', {
  attributes: {
    name: Type.String(),
    'instance-count': Type.Integer({ description: 'How many workspaces of the organization carry the tag' }),
    'created-at': Timestamp,
  },
  relationships: { organization: ToOne('organizations') },
  links: false,
});

export const OrganizationTagListDocument = ListDocument(OrganizationTagResource, "A page of the organization's tags, by name");
