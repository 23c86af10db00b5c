import { Type, type Static } from 'typebox';
import { errors } from '../jsonapi/errors.ts';
import { PageParams } from '../jsonapi/pagination.ts';
import { MAX_FILTER_VALUES, tooManyValues } from '../jsonapi/query.ts';
import { Document, ListDocument, Linkage, Open, Resource, Timestamp } from '../jsonapi/schemas.ts';
import type { BindingInput, TagChange } from './service.ts';

// Sizes here only bound what is read; the service checks keys and values against TFE's rules
// (after the caller is authorized) and answers 422 at the offending member.
const Text = Type.String({ maxLength: 1024 });

/** One tag binding as clients send it; go-tfe leaves out `value` for a key-only tag. */
export const TagBindingData = Type.Object({
  type: Type.Literal('tag-bindings'),
  id: Type.Optional(Type.String({ maxLength: 64 })),
  attributes: Type.Object({ key: Text, value: Type.Optional(Type.Union([Text, Type.Null()])) }),
});

/** A flat tag, named by `attributes.name` or by `id`. */
export const FlatTagData = Type.Object({
  type: Type.Literal('tags'),
  id: Type.Optional(Type.String({ maxLength: 64 })),
  attributes: Type.Optional(Type.Object({ name: Type.Optional(Text) })),
});

const MAX_ITEMS = 100;

/** `relationships.tag-bindings` of a workspace or project body: replaces the set. */
export const TagBindingsRelationship = Type.Optional(Type.Object({ data: Type.Array(TagBindingData, { maxItems: MAX_ITEMS }) }));
/** `relationships.tags` of a workspace create body. */
export const TagsRelationship = Type.Optional(Type.Object({ data: Type.Array(FlatTagData, { maxItems: MAX_ITEMS }) }));
/** `attributes.tag-names` of a workspace body. */
export const TagNamesAttribute = Type.Optional(Type.Array(Text, { maxItems: MAX_ITEMS }));

export const TagBindingsBody = Type.Object({ data: Type.Array(TagBindingData, { maxItems: MAX_ITEMS }) });
export const FlatTagsBody = Type.Object({ data: Type.Array(FlatTagData, { minItems: 1, maxItems: MAX_ITEMS }) });

export const ListFlatTagsQuery = Type.Object({ ...PageParams, name: Type.Optional(Type.String()) });

export const bindingsOf = (data: ReadonlyArray<Static<typeof TagBindingData>>): BindingInput[] =>
  data.map((d) => ({ key: d.attributes.key, value: d.attributes.value ?? '' }));

export const refsOf = (data: ReadonlyArray<Static<typeof FlatTagData>>) =>
  data.map((d) => ({ ...(d.id !== undefined ? { id: d.id } : {}), ...(d.attributes?.name !== undefined ? { name: d.attributes.name } : {}) }));

/** What a workspace or project body says about tags, field by field. */
export function tagChangeOf(body: {
  attributes?: { 'tag-names'?: string[]; [other: string]: unknown };
  relationships?: {
    'tag-bindings'?: { data: Array<Static<typeof TagBindingData>> };
    tags?: { data: Array<Static<typeof FlatTagData>> };
    [other: string]: unknown;
  };
}): TagChange {
  const r = body.relationships;
  return {
    ...(r?.['tag-bindings'] ? { bindings: bindingsOf(r['tag-bindings'].data) } : {}),
    ...(body.attributes?.['tag-names'] ? { names: body.attributes['tag-names'] } : {}),
    ...(r?.tags ? { refs: refsOf(r.tags.data) } : {}),
  };
}

/**
 * `filter[tagged][i][key]` and `filter[tagged][i][value]` (i = 0, 1, …): each pair must hold. An
 * empty or absent value matches any value of the key. 400 for a value without its key, and for
 * more than MAX_FILTER_VALUES pairs.
 */
export function taggedFilter(query: Record<string, unknown>): Array<{ key: string; value?: string }> {
  const byIndex = new Map<number, { key?: string; value?: string }>();
  for (const [name, raw] of Object.entries(query)) {
    const m = /^filter\[tagged\]\[(\d{1,3})\]\[(key|value)\]$/.exec(name);
    if (!m || typeof raw !== 'string') continue;
    const entry = byIndex.get(Number(m[1])) ?? {};
    entry[m[2] as 'key' | 'value'] = raw;
    byIndex.set(Number(m[1]), entry);
  }
  if (byIndex.size > MAX_FILTER_VALUES) throw tooManyValues('filter[tagged]');
  return [...byIndex.entries()]
    .sort(([a], [b]) => a - b)
    .map(([i, e]) => {
      if (!e.key) throw errors.badRequest(`filter[tagged][${i}][key] is required`, `filter[tagged][${i}][key]`);
      return e.value ? { key: e.key, value: e.value } : { key: e.key };
    });
}

// ---- responses

export const TagBindingResource = Resource('TagBinding', 'tag-bindings', {
  attributes: { key: Type.String(), value: Type.String({ description: '"" for a key-only tag' }), 'created-at': Timestamp },
  links: false,
});

export const EffectiveTagBindingResource = Open(
  {
    id: Type.String(),
    type: Type.Unsafe<string>({ type: 'string', const: 'effective-tag-bindings' }),
    attributes: Open({ key: Type.String(), value: Type.String() }),
    links: Type.Optional(Open({ 'inherited-from': Linkage('projects') }, { description: 'present when inherited from the project' })),
  },
  { description: "A tag binding in effect: the resource's own, or its project's" },
);

export const FlatTagResource = Resource('Tag', 'tags', { attributes: { name: Type.String() }, links: false });

export const TagBindingList = Document(Type.Array(TagBindingResource), 'The tag bindings, in the order their keys arrived');
export const EffectiveTagBindingList = Document(Type.Array(EffectiveTagBindingResource), 'The tag bindings in effect');
export const FlatTagListDocument = ListDocument(FlatTagResource, "A page of the workspace's flat tags");

const Related = Open({ related: Type.String() });
/** The tag relationships of a workspace or project resource (see serialize.ts). */
export const TagRelationshipsSchema = {
  'tag-bindings': Open({ links: Related }),
  'effective-tag-bindings': Open({ data: Type.Optional(Type.Array(Linkage('effective-tag-bindings'))), links: Related }),
};
