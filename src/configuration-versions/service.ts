// Configuration versions: the Terraform configuration a run would use. A client creates one, then
// PUTs the tarball to the upload URL it is given; the URL carries its own credential (TFE's
// archivist URLs work without the API token too), so it is a secret: random, stored only as a
// digest, valid once and for UPLOAD_TTL_MS. Hangar stores the bytes and executes nothing.
import type { Caller } from '../auth/caller.ts';
import { authorize } from '../auth/authorize.ts';
import { digestSecret } from '../auth/secrets.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId, randomBase62 } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../time.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { ConfigurationVersion } from './store.ts';

export type { ConfigurationVersion };

/** How long an upload URL works after the version is created. */
export const UPLOAD_TTL_MS = 15 * 60_000;
/** The largest tarball accepted (stored in the database). */
export const MAX_ARCHIVE_BYTES = 10 * 1024 * 1024;
/** The upload URL's secret: 256 bits or so, base62. */
const UPLOAD_SECRET = /^[0-9A-Za-z]{43}$/;

export interface ConfigurationVersionInput {
  autoQueueRuns?: boolean;
  speculative?: boolean;
  provisional?: boolean;
}

export function createConfigurationVersionsService(deps: { database: Database; workspaces: WorkspacesService }) {
  const db = deps.database.db;

  /** A configuration version whose workspace the caller may read; 404 otherwise. */
  async function find(caller: Caller, id: string) {
    const cv = hasPrefix(id, 'cv') ? await store.findConfigurationVersion(db, id) : undefined;
    if (!cv) throw errors.notFound();
    const found = await deps.workspaces.find(caller, { id: cv.workspaceId });
    return { cv, found };
  }

  return {
    /** The version, for the runs domain: the caller's access to its workspace is checked there. */
    row: (q: Queryable, id: string) => (hasPrefix(id, 'cv') ? store.findConfigurationVersion(q, id) : Promise.resolve(undefined)),

    /** The workspace's newest uploaded version (a run created without one uses it, as in TFE). */
    latestUploaded: (q: Queryable, workspaceId: string) => store.latestUploaded(q, workspaceId),

    /** Creates a pending version; the secret of its upload URL exists only in this answer. */
    async create(caller: Caller, workspaceId: string, input: ConfigurationVersionInput): Promise<{ cv: ConfigurationVersion; uploadSecret: string }> {
      const found = await deps.workspaces.find(caller, { id: workspaceId });
      authorize(found, 'queue-run');
      const uploadSecret = randomBase62(43);
      const at = now();
      const cv: ConfigurationVersion = {
        id: newId('cv'),
        workspaceId: found.workspace.id,
        status: 'pending',
        source: 'tfe-api',
        autoQueueRuns: input.autoQueueRuns ?? true,
        speculative: input.speculative ?? false,
        provisional: input.provisional ?? false,
        uploadExpiresAt: new Date(Date.parse(at) + UPLOAD_TTL_MS).toISOString(),
        archiveSize: null,
        createdAt: at,
        uploadedAt: null,
      };
      await store.insertConfigurationVersion(db, cv, digestSecret(uploadSecret));
      return { cv, uploadSecret };
    },

    show: async (caller: Caller, id: string) => (await find(caller, id)).cv,

    async list(caller: Caller, workspaceId: string, page: Page) {
      const found = await deps.workspaces.find(caller, { id: workspaceId });
      return store.listConfigurationVersions(db, found.workspace.id, page);
    },

    /**
     * The PUT to an upload URL: no caller, the URL is the credential. An unknown, used or
     * expired URL is a 404, all alike.
     */
    async upload(secret: string, archive: Uint8Array): Promise<void> {
      if (!UPLOAD_SECRET.test(secret)) throw errors.notFound();
      if (archive.byteLength === 0) throw errors.badRequest('The upload is empty');
      if (!(await store.storeUpload(db, digestSecret(secret), archive, now()))) throw errors.notFound();
    },
  };
}

export type ConfigurationVersionsService = ReturnType<typeof createConfigurationVersionsService>;
