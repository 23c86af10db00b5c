import { commaList } from '../jsonapi/query.ts';
import type { Binding, EffectiveBinding, FlatTag } from './service.ts';

export function bindingResource(b: Binding) {
  return { id: b.id, type: 'tag-bindings', attributes: { key: b.key, value: b.value, 'created-at': b.createdAt } };
}

/** An inherited binding says where it comes from; go-tfe reads `links.inherited-from`. */
export function effectiveBindingResource(b: EffectiveBinding) {
  return {
    id: b.id,
    type: 'effective-tag-bindings',
    attributes: { key: b.key, value: b.value },
    ...(b.inheritedFrom ? { links: { 'inherited-from': { id: b.inheritedFrom, type: 'projects' } } } : {}),
  };
}

export function flatTagResource(t: FlatTag) {
  return { id: t.id, type: 'tags', attributes: { name: t.name } };
}

/**
 * The tag relationships of a workspace or project at `self`. The effective bindings are linked
 * to, and listed too when the request asked to include them (they then go in `included`).
 */
export function tagRelationships(self: string, effective?: readonly EffectiveBinding[]) {
  return {
    'tag-bindings': { links: { related: `${self}/tag-bindings` } },
    'effective-tag-bindings': {
      ...(effective ? { data: effective.map((b) => ({ id: b.id, type: 'effective-tag-bindings' })) } : {}),
      links: { related: `${self}/effective-tag-bindings` },
    },
  };
}

/** `included` for resources listed with their effective bindings (each binding once). */
export function includedBindings(lists: ReadonlyArray<readonly EffectiveBinding[] | undefined>) {
  const seen = new Set<string>();
  const out = [];
  for (const list of lists)
    for (const b of list ?? []) {
      const id = `${b.id}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push(effectiveBindingResource(b));
    }
  return out;
}

/** Whether `include` asks for the effective tag bindings (other values are the resource's own business). */
export const includesEffectiveTags = (include: string | undefined): boolean => (commaList(include, 'include') ?? []).includes('effective_tag_bindings');
