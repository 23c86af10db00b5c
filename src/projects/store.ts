import type { Queryable } from '../db/index.ts';

export async function insertDefaultProject(q: Queryable, row: { id: string; organizationId: string; createdAt: string }): Promise<void> {
  await q
    .insertInto('projects')
    .values({
      id: row.id,
      organization_id: row.organizationId,
      name: 'Default Project',
      description: null,
      auto_destroy_activity_duration: null,
      is_default: true,
      created_at: row.createdAt,
    })
    .execute();
}

/** organization id → default project id, for the given organizations (one query). */
export async function defaultProjectIds(q: Queryable, organizationIds: readonly string[]): Promise<Map<string, string>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await q
    .selectFrom('projects')
    .select(['id', 'organization_id'])
    .where('organization_id', 'in', organizationIds)
    .where('is_default', '=', true)
    .execute();
  return new Map(rows.map((r) => [r.organization_id, r.id]));
}

/** Which of `ids` are projects of the organization (one query). */
export async function projectIdsInOrganization(q: Queryable, organizationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await q.selectFrom('projects').select('id').where('organization_id', '=', organizationId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
