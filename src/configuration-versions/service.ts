// Configuration versions: the Terraform configuration a run would use. A client creates one, then
// PUTs the tarball to the upload URL it is given; the URL carries its own credential (TFE's
// archivist URLs work without the API token too), signed like a state upload URL's
// (crypto/upload-credentials.ts) and valid for UPLOAD_TTL_MS; a later upload replaces the bytes
// (see `upload`). Hangar stores the bytes and executes nothing.
import type { Caller } from '../auth/caller.ts';
import { authorize } from '../auth/authorize.ts';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { checkUploadCredential, issueUploadCredential, uploadUsedUp } from '../crypto/upload-credentials.ts';
import type { BlobKey, BlobStore } from '../blobs/store.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import { checkArchive, UnsafeArchiveError } from '../archive.ts';
import type { Page } from '../jsonapi/pagination.ts';
import { now } from '../time.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import * as store from './store.ts';
import type { ConfigurationVersion } from './store.ts';

export type { ConfigurationVersion };

/** How long an upload URL works after the version is created. */
export const UPLOAD_TTL_MS = 15 * 60_000;

export interface ConfigurationVersionInput {
  autoQueueRuns?: boolean;
  speculative?: boolean;
  provisional?: boolean;
}

export function createConfigurationVersionsService(deps: { database: Database; workspaces: WorkspacesService; keyring: Keyring | null; blobs: BlobStore }) {
  const db = deps.database.db;
  const archiveKey = (id: string): BlobKey => ({ family: 'configuration-versions', owner: id, name: 'archive' });

  const keyring = () => loadedKeyring(deps.keyring);

  // Registered by the runs domain (which builds on this one): whether an unfinished run still
  // needs a version's archive, so that archiving it cannot pull the files from under a job.
  let inUse: (q: Queryable, id: string) => Promise<boolean> = async () => false;

  /**
   * The upload URL's last segment, `<version id>.<credential>`: the URL must name its version,
   * and the archivist path has one segment for it (the request log redacts all of it).
   */
  const uploadObject = (id: string) => `${id}.${issueUploadCredential(keyring(), 'configuration-upload', id, UPLOAD_TTL_MS)}`;

  /** The version an upload URL's last segment names, if its credential checks out; 404 otherwise. Costs no query. */
  function checkUploadUrl(object: string): string {
    const dot = object.indexOf('.');
    const id = object.slice(0, Math.max(dot, 0));
    checkUploadCredential(keyring(), 'configuration-upload', id, object.slice(dot + 1));
    return id;
  }

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

    /** The uploaded archive, for a run about to execute. */
    archive: (id: string) => deps.blobs.get(archiveKey(id)),

    /** The workspace's newest uploaded version (a run created without one uses it, as in TFE). */
    latestUploaded: (q: Queryable, workspaceId: string) => store.latestUploaded(q, workspaceId),

    /** Creates a pending version; its upload URL's last segment exists only in this answer. */
    async create(caller: Caller, workspaceId: string, input: ConfigurationVersionInput): Promise<{ cv: ConfigurationVersion; uploadObject: string }> {
      const found = await deps.workspaces.find(caller, { id: workspaceId });
      authorize(found, 'queue-run');
      const at = now();
      const cv: ConfigurationVersion = {
        id: newId('cv'),
        workspaceId: found.workspace.id,
        status: 'pending',
        source: 'tfe-api',
        autoQueueRuns: input.autoQueueRuns ?? true,
        speculative: input.speculative ?? false,
        provisional: input.provisional ?? false,
        archiveSize: null,
        createdAt: at,
        uploadedAt: null,
        archivedAt: null,
      };
      await store.insertConfigurationVersion(db, cv);
      return { cv, uploadObject: uploadObject(cv.id) };
    },

    show: async (caller: Caller, id: string) => (await find(caller, id)).cv,

    async list(caller: Caller, workspaceId: string, page: Page) {
      const found = await deps.workspaces.find(caller, { id: workspaceId });
      return store.listConfigurationVersions(db, found.workspace.id, page);
    },

    useInUseCheck(check: (q: Queryable, id: string) => Promise<boolean>): void {
      inUse = check;
    },

    /** The uploaded archive's bytes, for a caller who may read the workspace; 404 unless uploaded (as TFE). */
    async download(caller: Caller, id: string): Promise<Uint8Array> {
      const { cv } = await find(caller, id);
      const bytes = cv.status === 'uploaded' ? await deps.blobs.get(archiveKey(cv.id)) : undefined;
      if (!bytes) throw errors.notFound();
      return bytes;
    },

    /**
     * Archives an uploaded version (its bytes are dropped), as TFE: never the workspace's
     * current version, nor one an unfinished run still uses.
     */
    async archiveVersion(caller: Caller, id: string): Promise<void> {
      const { cv, found } = await find(caller, id);
      authorize(found, 'queue-run');
      const refused = (detail: string) => errors.conflict(detail, 'transition not allowed');
      await deps.database.transaction(async (trx) => {
        if (cv.status !== 'uploaded') throw refused(`configuration could not be archived because it is ${cv.status}`);
        if (await inUse(trx, cv.id)) throw refused('configuration could not be archived because a run that has not finished uses it');
        if (!(await store.archiveVersion(trx, cv.id, now()))) {
          const fresh = await store.findConfigurationVersion(trx, cv.id);
          if (!fresh) throw errors.notFound();
          throw refused(
            fresh.status === 'uploaded'
              ? 'configuration could not be archived because it is current'
              : `configuration could not be archived because it is ${fresh.status}`,
          );
        }
        await deps.blobs.delete(archiveKey(cv.id), trx);
      });
    },

    /** For the route, to refuse a bad URL before its body is read. */
    checkUploadUrl,

    /**
     * The PUT to an upload URL: no caller, the signed credential is the permission, for one
     * version, until it expires. A second PUT replaces the archive, as TFE's archivist takes it
     * (go-tfe's TestConfigurationVersionsUploadTarGzip uploads twice to one URL and expects both
     * to succeed); Hangar executes no configuration, so no run can have read the first.
     */
    async upload(object: string, archive: Uint8Array): Promise<void> {
      const id = checkUploadUrl(object);
      if (archive.byteLength === 0) throw errors.badRequest('The upload is empty');
      // Refused before any run sees it: absolute paths, `..`, links out, devices, a decompression bomb.
      try {
        await checkArchive(archive, { unreadable: 'accept' });
      } catch (e) {
        if (e instanceof UnsafeArchiveError) throw errors.invalidAttribute('/', e.message);
        throw e;
      }
      const version = await store.findConfigurationVersion(db, id);
      if (!version) throw errors.notFound();
      if (version.status !== 'pending' && version.status !== 'uploaded') throw uploadUsedUp();
      await deps.database.transaction(async (trx) => {
        // The bytes first: on the filesystem backend they are in place before the row says so.
        await deps.blobs.put(archiveKey(id), archive, trx);
        if (await store.storeUpload(trx, id, archive.byteLength, now())) return;
        // Nothing stored (rolled back): the version is gone with its workspace, or in a status that takes no bytes.
        throw (await store.findConfigurationVersion(trx, id)) ? uploadUsedUp() : errors.notFound();
      });
    },
  };
}

export type ConfigurationVersionsService = ReturnType<typeof createConfigurationVersionsService>;
