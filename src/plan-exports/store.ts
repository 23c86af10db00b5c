import { columns } from '../db/columns.ts';
import type { Queryable } from '../db/index.ts';
import type { PlanExportsTable } from '../db/schema.ts';

export interface PlanExport {
  id: string;
  /** The plan (its job) the export is of. */
  planId: string;
  dataType: string;
  createdAt: string;
  finishedAt: string;
}

const PLAN_EXPORTS = columns<PlanExportsTable, PlanExport>({
  id: 'id',
  planId: 'plan_id',
  dataType: 'data_type',
  createdAt: 'created_at',
  finishedAt: 'finished_at',
});

export async function insertPlanExport(q: Queryable, e: PlanExport): Promise<void> {
  await q.insertInto('plan_exports').values(PLAN_EXPORTS.write(e)).execute();
}

export async function findPlanExport(q: Queryable, id: string): Promise<PlanExport | undefined> {
  const r = await q.selectFrom('plan_exports').selectAll().where('id', '=', id).executeTakeFirst();
  return r && PLAN_EXPORTS.read(r);
}

/** Whether the plan has an export of the format that finished at or after `since` (still downloadable). */
export async function hasExportSince(q: Queryable, planId: string, dataType: string, since: string): Promise<boolean> {
  const r = await q
    .selectFrom('plan_exports')
    .select('id')
    .where('plan_id', '=', planId)
    .where('data_type', '=', dataType)
    .where('finished_at', '>=', since)
    .executeTakeFirst();
  return r !== undefined;
}

export async function deletePlanExport(q: Queryable, id: string): Promise<void> {
  await q.deleteFrom('plan_exports').where('id', '=', id).execute();
}
