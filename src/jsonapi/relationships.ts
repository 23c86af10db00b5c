// Relationship objects, shaped alike in every resource.

/** A to-one relationship: the linkage, and where the related resource lives (organizations by name). */
export function toOne(type: string, id: string) {
  return { data: { id, type }, links: { related: `/api/v2/${type}/${encodeURIComponent(id)}` } };
}
