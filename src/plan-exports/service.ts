// Plan exports, as TFE has them: the data of a finished plan in an export format. The only format
// is `sentinel-mock-bundle-v0`: Sentinel mocks of the plan (sentinel/mocks.ts), a .tar.gz a
// policy author unpacks beside a policy's test cases. Exporting and downloading take the
// workspace's `sentinel-mocks` permission (TFE's; write and admin access imply it).
//
// TFE builds an export in the background and keeps it for an hour. Hangar's exports are finished
// when made (building the bundle is left to the download, from the plan JSON the plan's job
// keeps, so nothing is stored twice), and downloadable for the same hour.
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { authorize } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import type { Database } from '../db/index.ts';
import { guarded } from '../db/constraints.ts';
import { hasPrefix, newId } from '../ids.ts';
import type { JobsService } from '../jobs/service.ts';
import { errors } from '../jsonapi/errors.ts';
import { runDescription } from '../policy-checks/service.ts';
import type { RunsService } from '../runs/service.ts';
import { mockBundleOffThread, type MockFile } from '../sentinel/mocks.ts';
import { now } from '../time.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { PlanExport } from './store.ts';

export type { PlanExport };

export const PLAN_EXPORT_TYPES = ['sentinel-mock-bundle-v0'] as const;
/** How long a finished export can be downloaded (TFE: one hour; then a new one can be made). */
export const PLAN_EXPORT_LIFETIME_MS = 60 * 60 * 1000;

const DATA_TYPE = '/data/attributes/data-type';
const PLAN = '/data/relationships/plan/data';

export type PlanExportStatus = 'finished' | 'expired';

export interface PlanExportView {
  planExport: PlanExport;
  status: PlanExportStatus;
  statusTimestamps: Record<string, string>;
}

function viewOf(e: PlanExport, at = Date.now()): PlanExportView {
  const expiresAt = new Date(Date.parse(e.finishedAt) + PLAN_EXPORT_LIFETIME_MS).toISOString();
  const expired = Date.parse(expiresAt) <= at;
  return {
    planExport: e,
    status: expired ? 'expired' : 'finished',
    statusTimestamps: { 'queued-at': e.createdAt, 'finished-at': e.finishedAt, ...(expired ? { 'expired-at': expiresAt } : {}) },
  };
}

/** The files as a gzip-compressed tar archive, each readable by its owner only when unpacked. */
async function tarGz(files: readonly MockFile[]): Promise<Buffer> {
  const archive = pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('data', (c: Buffer) => chunks.push(c));
    gzip.on('end', resolve);
    gzip.on('error', reject);
    archive.on('error', reject);
  });
  archive.pipe(gzip);
  const mtime = new Date();
  for (const f of files) archive.entry({ name: f.name, mode: 0o600, mtime }, f.text);
  archive.finalize();
  await done;
  return Buffer.concat(chunks);
}

export function createPlanExportsService(deps: { database: Database; runs: RunsService; jobs: JobsService; workspaces: WorkspacesService }) {
  const { database, runs, jobs, workspaces } = deps;
  const db = database.db;

  /** The plan (its job and run) if the caller may download its workspace's Sentinel mocks. */
  async function planFor(caller: Caller, planId: string) {
    const { job, view } = await runs.phase(caller, planId, 'plan');
    const found = await workspaces.find(caller, { id: view.run.workspaceId });
    authorize(found, 'download-sentinel-mocks');
    return { job, run: view.run, workspace: found.workspace, org: found.org };
  }

  async function bundleOf({ job, run, workspace, org }: Awaited<ReturnType<typeof planFor>>): Promise<Buffer> {
    const planJson = job.status === 'finished' ? await jobs.getBlob(db, job.id, 'plan-json') : undefined;
    if (!planJson) throw errors.conflict('The plan has not finished: it has no data to export yet');
    return tarGz(await mockBundleOffThread(planJson.toString('utf8'), runDescription(run, workspace, org)));
  }

  async function find(caller: Caller, id: string) {
    const e = hasPrefix(id, 'pe') ? await store.findPlanExport(db, id) : undefined;
    if (!e) throw errors.notFound();
    return { planExport: e, ...(await planFor(caller, e.planId)) };
  }

  return {
    async create(caller: Caller, input: { planId: string | undefined; dataType: string | undefined }): Promise<PlanExportView> {
      if (!input.dataType) throw errors.invalidAttribute(DATA_TYPE, 'A plan export needs a data type');
      if (!(PLAN_EXPORT_TYPES as readonly string[]).includes(input.dataType)) {
        throw errors.invalidAttribute(DATA_TYPE, `The data type must be one of: ${PLAN_EXPORT_TYPES.join(', ')}`);
      }
      if (!input.planId) throw errors.invalidAttribute(PLAN, 'A plan export needs a plan');
      const { job } = await planFor(caller, input.planId);
      if (job.status !== 'finished' || !(await jobs.hasBlob(db, job.id, 'plan-json'))) {
        throw errors.invalidAttribute(PLAN, 'Only a finished plan can be exported');
      }
      const at = now();
      // TFE: one downloadable export of a format per plan; another can be made when it expires.
      const since = new Date(Date.parse(at) - PLAN_EXPORT_LIFETIME_MS).toISOString();
      if (await store.hasExportSince(db, job.id, input.dataType, since)) {
        throw errors.invalidAttribute(PLAN, `This plan already has a downloadable export of type ${input.dataType}`);
      }
      const e: PlanExport = { id: newId('pe'), planId: job.id, dataType: input.dataType, createdAt: at, finishedAt: at };
      // The plan's run was deleted a moment ago.
      await guarded(store.insertPlanExport(db, e), { foreignKey: () => errors.notFound() });
      return viewOf(e);
    },

    async show(caller: Caller, id: string): Promise<PlanExportView> {
      return viewOf((await find(caller, id)).planExport);
    },

    /** The bundle, built from the plan as its checks read it; 409 once the export has expired. */
    async download(caller: Caller, id: string): Promise<Buffer> {
      const { planExport, ...plan } = await find(caller, id);
      if (viewOf(planExport).status === 'expired') throw errors.conflict('This plan export has expired; make a new one');
      return bundleOf(plan);
    },

    /** The bundle of a finished plan without an export to show for it (the web UI's download button). */
    async mocksOfPlan(caller: Caller, planId: string): Promise<Buffer> {
      return bundleOf(await planFor(caller, planId));
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { planExport } = await find(caller, id);
      await store.deletePlanExport(db, planExport.id);
    },
  };
}

export type PlanExportsService = ReturnType<typeof createPlanExportsService>;
