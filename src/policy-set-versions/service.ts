// Policy set versions: a policy set's policies, modules and parameters uploaded as one tar.gz
// whose `sentinel.hcl` declares them (`policies.hcl` for an OPA set). A client creates a version,
// then PUTs the archive to its upload link: a signed URL of the same kind as a configuration
// version's (crypto/upload-credentials.ts), no token needed. The upload is read at once: the
// version is `ready` when its archive is sound and its declarations check out, `errored` with
// the reason otherwise. The newest ready version is the set's current one. A version takes one
// upload; the PUT answers only after the version is settled.
import type { Caller } from '../auth/caller.ts';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { checkUploadCredential, issueUploadCredential, uploadUsedUp } from '../crypto/upload-credentials.ts';
import type { BlobStore } from '../blobs/store.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors } from '../jsonapi/errors.ts';
import type { PolicySetsService } from '../policy-sets/service.ts';
import { now } from '../time.ts';
import { ArchiveError, unpack } from './archive.ts';
import { ManifestError, readManifest, type Manifest } from './manifest.ts';
import * as store from './store.ts';
import type { PolicySetVersion } from './store.ts';

export type { Manifest, PolicySetVersion };

/** How long an upload link works after it is handed out. */
export const UPLOAD_TTL_MS = 15 * 60_000;

export interface VersionView {
  version: PolicySetVersion;
  /** The upload URL's last segment: only while pending, and only for a caller who may upload. */
  uploadObject: string | null;
}

export function createPolicySetVersionsService(deps: { database: Database; policySets: PolicySetsService; keyring: Keyring | null; blobs: BlobStore }) {
  const db = deps.database.db;
  // Every view of a policy set names its newest and current versions (and a versioned set's
  // policy count is its current version's).
  deps.policySets.useVersionReader({
    pointers: (q, setIds) => store.newestAndCurrent(q, setIds),
    versions: (q, ids) => store.findVersions(q, ids),
  });

  const keyring = () => loadedKeyring(deps.keyring);
  const uploadObject = (id: string) => `${id}.${issueUploadCredential(keyring(), 'policy-set-version-upload', id, UPLOAD_TTL_MS)}`;

  /** The version an upload URL's last segment names, if its credential checks out; 404 otherwise. Costs no query. */
  function checkUploadUrl(object: string): string {
    const dot = object.indexOf('.');
    const id = object.slice(0, Math.max(dot, 0));
    checkUploadCredential(keyring(), 'policy-set-version-upload', id, object.slice(dot + 1));
    return id;
  }

  /** What the archive declares, or why it cannot be used. */
  async function read(kind: 'sentinel' | 'opa', archive: Uint8Array): Promise<{ manifest: Manifest } | { error: string }> {
    try {
      return { manifest: readManifest(kind, await unpack(archive)) };
    } catch (e) {
      if (e instanceof ArchiveError || e instanceof ManifestError) return { error: e.message };
      throw e;
    }
  }

  return {
    /** Creates a pending version of a set; its upload link is in the answer. */
    async create(caller: Caller, policySetId: string): Promise<VersionView> {
      const { set } = await deps.policySets.find(caller, policySetId, 'manage-policies');
      const at = now();
      const version: PolicySetVersion = {
        id: newId('polsetver'),
        policySetId: set.id,
        status: 'pending',
        source: 'tfe-api',
        error: null,
        policyCount: 0,
        createdAt: at,
        updatedAt: at,
        readyAt: null,
        erroredAt: null,
      };
      await deps.policySets.withVersionableSet(set.id, (q) => store.insertVersion(q, version));
      return { version, uploadObject: uploadObject(version.id) };
    },

    /**
     * A version whose set the caller may read. While it is pending, a caller who may upload gets
     * a fresh upload link (go-tfe uploads through the link of the version it has just read).
     */
    async show(caller: Caller, id: string): Promise<VersionView> {
      const version = hasPrefix(id, 'polsetver') ? await store.findVersion(db, id) : undefined;
      if (!version) throw errors.notFound();
      await deps.policySets.find(caller, version.policySetId, 'read-policies');
      const mayUpload = version.status === 'pending' && (await deps.policySets.may(caller, version.policySetId, 'manage-policies'));
      return { version, uploadObject: mayUpload ? uploadObject(version.id) : null };
    },

    /** For the route, to refuse a bad URL before its body is read. */
    checkUploadUrl,

    /** The PUT to an upload link: no caller, the signed credential is the permission. */
    async upload(object: string, archive: Uint8Array): Promise<void> {
      const id = checkUploadUrl(object);
      if (archive.byteLength === 0) throw errors.badRequest('The upload is empty');
      const version = await store.findVersion(db, id);
      const set = version && (await deps.policySets.findById(version.policySetId));
      if (!version || !set) throw errors.notFound();
      if (version.status !== 'pending') throw uploadUsedUp();
      const outcome = await read(set.kind, archive);
      const settled = await deps.database.transaction(async (trx) => {
        if (!('manifest' in outcome)) return store.settle(trx, id, { status: 'errored', error: outcome.error }, now());
        // The archive as uploaded, kept in the blob store; rolled back with the row if another upload settled it first.
        await deps.blobs.put({ family: 'policy-set-versions', owner: id, name: 'archive' }, archive, trx);
        const ready = { status: 'ready' as const, manifest: JSON.stringify(outcome.manifest), policyCount: outcome.manifest.policies.length };
        if (!(await store.settle(trx, id, ready, now()))) throw uploadUsedUp();
        return true;
      });
      if (!settled) throw uploadUsedUp();
    },

    /** For the policy-check runtime: what a ready version declared, sources included. */
    async manifest(q: Queryable, id: string): Promise<Manifest | null> {
      const text = await store.readManifestText(q, id);
      return text === null ? null : (JSON.parse(text) as Manifest);
    },
  };
}

export type PolicySetVersionsService = ReturnType<typeof createPolicySetVersionsService>;
