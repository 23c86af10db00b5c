// State versions: Terraform's state, stored versioned, sealed with the keyring and capped in
// size. A version is created finalized (state sent inline) or pending, its bytes then PUT to
// short-lived, single-use signed URLs that carry their own permission (Terraform sends them no
// token). Only the caller holding the workspace's lock may write, and the serial and lineage
// must follow the current version's unless `force` says otherwise, as in TFE.
import { createHash } from 'node:crypto';
import { authorize, can } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { DecryptionError, loadedKeyring } from '../crypto/keyring.ts';
import { checkUploadCredential, issueUploadCredential, uploadUsedUp } from '../crypto/upload-credentials.ts';
import type { BlobKey, BlobStore } from '../blobs/store.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { derivedId, hasPrefix, newId } from '../ids.ts';
import { ApiError, errors } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import { now } from '../time.ts';
import { holderOf, type WorkspaceLocksService } from '../workspace-locks/service.ts';
import type { FoundWorkspace, WorkspaceBase, WorkspacesService } from '../workspaces/service.ts';
import { readStored, stateInstances, withHistory, type StateInstance, type StoredInstance } from './resource-instances.ts';
import * as store from './store.ts';
import type { ListedVersion, StateOutput, StateVersion } from './store.ts';

export type { ListedVersion, StateOutput, StateVersion };

/** The largest state file Hangar stores (and the largest JSON state): 10 MiB each. */
export const MAX_STATE_BYTES = 10 * 1024 * 1024;
/** How long an upload URL works after the version is created. */
export const UPLOAD_URL_TTL_MS = 10 * 60 * 1000;
export const BLOB_KINDS = ['state', 'json-state'] as const;
export type BlobKind = (typeof BLOB_KINDS)[number];
const ROTATION_BATCH_SIZE = 100;

export interface CreateStateVersionInput {
  serial: number;
  md5: string;
  lineage?: string | null;
  /** Base64, as the API carries them. */
  state?: string;
  jsonState?: string;
  force?: boolean;
}

export interface StateVersionView {
  version: StateVersion;
  outputIds: string[];
  /** Only in the answer to the create of a pending version: the credential of each upload URL. */
  uploadCredentials?: Record<BlobKind, string>;
}

/** A version as a list shows it (serialize.ts reads no more of any version). */
export interface ListedVersionView {
  version: ListedVersion;
  outputIds: string[];
  uploadCredentials?: Record<BlobKind, string>;
}

/** One of a workspace's resources (a managed resource instance of its current state), with its stable id. */
export interface WorkspaceResourceView {
  id: string;
  instance: StoredInstance;
}

export interface OutputView {
  output: StateOutput;
  /** The value, or undefined where it must not be shown (sensitive, in lists). */
  value: unknown;
}

/** What a state file says about itself, and what Hangar derives from it. */
interface ParsedState {
  formatVersion: number | null;
  terraformVersion: string | null;
  lineage: string | null;
  outputs: Array<{ name: string; sensitive: boolean; type: string; detailedType: unknown; value: unknown }>;
  resources: Array<{ name: string; type: string; count: number; module: string; provider: string }>;
  providers: Record<string, Record<string, number>>;
  modules: Record<string, Record<string, number>>;
  billableRumCount: number;
  instances: StateInstance[];
}

/** TFE's coarse output type from Terraform's type constraint (`["list","string"]` → array). */
function outputType(detailed: unknown): string {
  const head = Array.isArray(detailed) ? detailed[0] : detailed;
  switch (head) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'bool':
      return 'boolean';
    case 'list':
    case 'tuple':
    case 'set':
      return 'array';
    case 'map':
    case 'object':
      return 'object';
    default:
      return 'string';
  }
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Resources TFE does not bill (Terraform's own bookkeeping). */
const UNBILLED = new Set(['terraform_data', 'null_resource']);

/** Reads a state file (Terraform's format 4, or anything JSON with the same members). */
export function parseState(bytes: Buffer, pointer: string): ParsedState {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw errors.invalidAttribute(pointer, 'State is not a valid Terraform state file (not JSON)');
  }
  if (!isObject(doc)) throw errors.invalidAttribute(pointer, 'State is not a valid Terraform state file');
  const outputs = Object.entries(isObject(doc.outputs) ? doc.outputs : {}).map(([name, o]) => {
    const out = isObject(o) ? o : {};
    return { name, sensitive: out.sensitive === true, type: outputType(out.type), detailedType: out.type ?? null, value: out.value ?? null };
  });
  const resources: ParsedState['resources'] = [];
  const providers: ParsedState['providers'] = {};
  const modules: ParsedState['modules'] = {};
  let billable = 0;
  for (const r of Array.isArray(doc.resources) ? doc.resources : []) {
    if (!isObject(r) || r.mode !== 'managed') continue;
    const type = String(r.type ?? '');
    const count = Array.isArray(r.instances) ? r.instances.length : 0;
    const module = typeof r.module === 'string' && r.module ? r.module : 'root';
    const provider = String(r.provider ?? '');
    resources.push({ name: String(r.name ?? ''), type, count, module, provider });
    (providers[provider] ??= {})[type] = (providers[provider]?.[type] ?? 0) + count;
    (modules[module] ??= {})[type] = (modules[module]?.[type] ?? 0) + count;
    if (!UNBILLED.has(type)) billable += count;
  }
  return {
    formatVersion: typeof doc.version === 'number' ? doc.version : null,
    terraformVersion: typeof doc.terraform_version === 'string' ? doc.terraform_version : null,
    lineage: typeof doc.lineage === 'string' ? doc.lineage : null,
    outputs,
    resources,
    providers,
    modules,
    billableRumCount: billable,
    instances: stateInstances(doc),
  };
}

const md5Of = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** Base64 as go-tfe sends it; anything else is a 422 at the attribute. */
function decodeBase64(text: string, attribute: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw errors.invalidAttribute(`/data/attributes/${attribute}`, 'must be base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > MAX_STATE_BYTES)
    throw errors.invalidAttribute(`/data/attributes/${attribute}`, `is larger than the ${MAX_STATE_BYTES / 1024 / 1024} MiB Hangar stores`);
  return bytes;
}

const creatorLostLock = () =>
  errors.conflict('The workspace is no longer locked by the lock this state version was created under; create a new state version while holding the lock');
const creatorLostAccess = () => errors.forbidden("The creator of this state version may no longer write this workspace's state");

/** A 404 from a lookup is "cannot see it" (null); anything else (the database went away) stays an error. */
const unseen = (e: unknown): null => {
  if (e instanceof ApiError && e.status === 404) return null;
  throw e;
};

const notLockedByYou = () =>
  errors.conflict('The workspace must be locked by you before you create a state version (lock it first: POST /workspaces/:id/actions/lock)');

export function createStateVersionsService(deps: {
  database: Database;
  organizationLookup: OrganizationLookup;
  workspaces: WorkspacesService;
  workspaceLocks: WorkspaceLocksService;
  keyring: Keyring | null;
  blobs: BlobStore;
}) {
  const { database, workspaces, workspaceLocks } = deps;
  const db = database.db;
  const blobs = deps.blobs;
  const blobKey = (versionId: string, kind: BlobKind): BlobKey => ({ family: 'state-versions', owner: versionId, name: kind });

  const keyring = () => loadedKeyring(deps.keyring);
  /** The caller a token stands for now (tokens/service.ts registers it: tokens are built after state versions). */
  let callerOfToken: (tokenId: string) => Promise<Caller | null> = async () => null;
  // The associated data binds each ciphertext to its row: moved elsewhere, it does not open.
  const outputAd = (outputId: string) => `state-version-output:${outputId}`;

  function openOutput(o: StateOutput): unknown {
    try {
      return JSON.parse(keyring().decrypt(o.sealedValue, outputAd(o.id)));
    } catch (e) {
      if (e instanceof DecryptionError) throw new DecryptionError(`state version output ${o.id}: ${e.message}`);
      throw e;
    }
  }

  /** The workspace of a state version, if the caller may do `action` there (404 for the unseen). */
  async function versionFor(
    caller: Caller,
    id: string,
    action: 'read-state' | 'read-state-outputs',
  ): Promise<{ version: StateVersion; found: FoundWorkspace }> {
    const version = hasPrefix(id, 'sv') ? await store.findVersion(db, id) : undefined;
    if (!version) throw errors.notFound();
    const found = await workspaces.find(caller, { id: version.workspaceId });
    authorize(found, action);
    return { version, found };
  }

  /**
   * The digest that tells whether a resource's attributes changed between versions, a MAC:
   * keyed, so that the digests in the database cannot confirm a guess of a state's values (the
   * state itself is sealed). A new primary key marks every resource changed once, at the next version.
   */
  const attributesDigest = (attributes: string) => keyring().sign('state-resource-attributes', attributes);

  /**
   * A version's resource instances: as stored, or, for a version stored before migration 0038,
   * derived from its state file, each created and last modified by that version (`digest` only
   * where the list is carried forward, not where it is shown).
   */
  async function instancesOf(
    q: Queryable,
    row: { id: string; createdAt: string; finalizedAt: string | null; resourceInstances: string | null },
    digest: (attributes: string) => string,
  ): Promise<StoredInstance[]> {
    if (row.resourceInstances !== null) return readStored(row.resourceInstances);
    const bytes = await blobs.get(blobKey(row.id, 'state'), q);
    if (!bytes) return [];
    let parsed: ParsedState;
    try {
      parsed = parseState(bytes, '/');
    } catch {
      return [];
    }
    return withHistory(parsed.instances, [], { id: row.id, at: row.finalizedAt ?? row.createdAt }, digest);
  }

  async function views(versions: readonly StateVersion[]): Promise<StateVersionView[]> {
    const outputs = await store.outputsOf(
      db,
      versions.map((v) => v.id),
    );
    return versions.map((version) => ({ version, outputIds: outputs.filter((o) => o.stateVersionId === version.id).map((o) => o.id) }));
  }

  /** TFE's checks against the current version, unless forced: same lineage, no going back, one content per serial. */
  async function checkSequence(q: Queryable, workspaceId: string, serial: number, lineage: string | null, md5: string, force: boolean): Promise<void> {
    if (force) return;
    const current = await store.currentVersion(q, workspaceId);
    if (!current) return;
    if (lineage && current.lineage && lineage !== current.lineage) {
      throw errors.conflict(`The state's lineage (${lineage}) does not match the current state version's (${current.lineage}); use force to replace it`);
    }
    if (serial < current.serial) {
      throw errors.conflict(`The serial (${serial}) must be greater than or equal to the current state version's serial (${current.serial})`);
    }
    if (serial === current.serial && md5 !== current.md5) {
      throw errors.conflict(`A state version with serial ${serial} and different content already exists; increase the serial`);
    }
  }

  /** Stores a state file's bytes and what it yields, and makes the version current; in the caller's transaction. */
  async function storeState(q: Queryable, version: StateVersion, bytes: Buffer, parsed: ParsedState): Promise<store.Finalization> {
    const ring = keyring();
    // Once per version: a second write of the same state is the used-up URL's conflict.
    if (!(await blobs.create(blobKey(version.id, 'state'), bytes, q))) throw uploadUsedUp();
    const outputs: StateOutput[] = parsed.outputs.map((o, position) => {
      const id = newId('wsout');
      return {
        id,
        stateVersionId: version.id,
        position,
        name: o.name,
        sensitive: o.sensitive,
        type: o.type,
        detailedType: o.detailedType === null ? null : JSON.stringify(o.detailedType),
        sealedValue: ring.encrypt(JSON.stringify(o.value), outputAd(id)),
      };
    });
    await store.insertOutputs(q, outputs);
    const finalizedAt = now();
    // The version still pending, the current one is the one before it: what carries history forward.
    const previousRow = await store.currentResourceInstances(q, version.workspaceId);
    const previous = previousRow ? await instancesOf(q, previousRow, attributesDigest) : [];
    const instances = withHistory(parsed.instances, previous, { id: version.id, at: finalizedAt }, attributesDigest);
    return {
      position: await store.nextPosition(q, version.workspaceId),
      stateSize: bytes.length,
      stateFormatVersion: parsed.formatVersion,
      terraformVersion: parsed.terraformVersion,
      resources: JSON.stringify(parsed.resources),
      resourceCount: parsed.resources.reduce((n, r) => n + r.count, 0),
      providers: JSON.stringify(parsed.providers),
      modules: JSON.stringify(parsed.modules),
      billableRumCount: parsed.billableRumCount,
      resourceInstances: JSON.stringify(instances),
      finalizedAt,
      lineage: version.lineage ?? parsed.lineage,
    };
  }

  // One credential per file: the state's URL cannot be aimed at the JSON state, or the reverse.
  const uploadSubject = (id: string, kind: BlobKind) => `${id}:${kind}`;
  function uploadCredentials(id: string): Record<BlobKind, string> {
    const credential = (kind: BlobKind) => issueUploadCredential(keyring(), 'state-upload', uploadSubject(id, kind), UPLOAD_URL_TTL_MS);
    return { state: credential('state'), 'json-state': credential('json-state') };
  }

  /** 404 unless the URL's credential is Hangar's, for this version and kind, and unexpired. Costs no query. */
  function checkUploadUrl(id: string, kind: BlobKind, credential: string): void {
    checkUploadCredential(keyring(), 'state-upload', uploadSubject(id, kind), credential);
  }

  return {
    async create(caller: Caller, workspaceId: string, input: CreateStateVersionInput): Promise<StateVersionView> {
      const found = await workspaces.find(caller, { id: workspaceId });
      authorize(found, 'write-state');
      if (!/^[0-9a-f]{32}$/i.test(input.md5)) throw errors.invalidAttribute('/data/attributes/md5', 'Md5 must be 32 hexadecimal digits');
      const md5 = input.md5.toLowerCase();
      const state = input.state === undefined ? undefined : decodeBase64(input.state, 'state');
      const jsonState = input.jsonState === undefined ? undefined : decodeBase64(input.jsonState, 'json-state');
      if (state && md5Of(state) !== md5) throw errors.invalidAttribute('/data/attributes/md5', 'Md5 does not match the state');
      const parsed = state ? parseState(state, '/data/attributes/state') : undefined;
      const holder = holderOf(caller.principal);
      const at = now();
      const version: StateVersion = {
        id: newId('sv'),
        workspaceId: found.workspace.id,
        serial: input.serial,
        lineage: input.lineage ?? null,
        md5,
        status: 'pending',
        position: null,
        stateSize: null,
        stateFormatVersion: null,
        terraformVersion: null,
        resources: null,
        resourceCount: null,
        providers: null,
        modules: null,
        billableRumCount: null,
        jsonStateUploaded: false,
        force: input.force === true,
        lockHolderType: null,
        lockHolderId: null,
        lockLockedAt: null,
        createdByToken: caller.principal.tokenId,
        createdBy: holder.type === 'users' ? holder.id : null,
        runId: null,
        createdAt: at,
        finalizedAt: null,
      };
      const write = database.transaction(async (trx) => {
        // Holding the lock row serializes writers of this workspace (PostgreSQL; SQLite runs one transaction at a time).
        const lock = await workspaceLocks.current(trx, found.workspace.id, true);
        if (!lock || lock.holderType !== holder.type || lock.holderId !== holder.id) throw notLockedByYou();
        await checkSequence(trx, found.workspace.id, input.serial, version.lineage ?? parsed?.lineage ?? null, md5, version.force);
        await store.insertVersion(trx, { ...version, lockHolderType: lock.holderType, lockHolderId: lock.holderId, lockLockedAt: lock.lockedAt });
        if (jsonState) {
          await blobs.put(blobKey(version.id, 'json-state'), jsonState, trx);
          await store.markJsonStateUploaded(trx, version.id);
        }
        if (state && parsed) await store.finalize(trx, version.id, await storeState(trx, version, state, parsed));
      });
      // A unique position taken by a concurrent writer: the same conflict the sequence check gives.
      await guarded(write, {
        unique: () => errors.conflict('Another state version was written at the same moment; read the current state and retry'),
        foreignKey: () => errors.notFound(),
      });
      const stored = (await store.findVersion(db, version.id))!;
      const [view] = await views([stored]);
      return stored.status === 'pending' ? { ...view!, uploadCredentials: uploadCredentials(stored.id) } : view!;
    },

    /** Registers how a token id becomes the caller it stands for now. */
    useTokenCallers(resolve: (tokenId: string) => Promise<Caller | null>): void {
      callerOfToken = resolve;
    },

    /**
     * For the create route, before its body (up to ~27 MiB) is read: 404 or 403 for a caller who
     * may not write this workspace's state. `create` asks again; the answer is the same.
     */
    async authorizeWrite(caller: Caller, workspaceId: string): Promise<void> {
      authorize(await workspaces.find(caller, { id: workspaceId }), 'write-state');
    },

    /** For the route, to refuse a bad URL before its body is read. */
    checkUploadUrl,

    /**
     * The PUT to an upload URL. No caller: the signed credential is the permission, good for one
     * kind of one version, until it expires, once. Everything lands in one transaction or not at all.
     */
    async upload(id: string, kind: BlobKind, credential: string, bytes: Buffer): Promise<void> {
      checkUploadUrl(id, kind, credential);
      if (bytes.length > MAX_STATE_BYTES) throw errors.payloadTooLarge(MAX_STATE_BYTES);
      const version = await store.findVersion(db, id);
      if (!version) throw errors.notFound();
      if (kind === 'json-state') {
        // Nothing to keep: refused before the URL is used up, so the client can send the bytes again.
        if (bytes.length === 0) throw errors.invalidAttribute('/', 'The JSON state is empty');
        await guarded(
          database.transaction(async (trx) => {
            if (!(await blobs.create(blobKey(id, kind), bytes, trx))) throw uploadUsedUp();
            await store.markJsonStateUploaded(trx, id);
          }),
          { unique: uploadUsedUp, foreignKey: () => errors.notFound() },
        );
        return;
      }
      if (version.status !== 'pending') throw uploadUsedUp();
      if (md5Of(bytes) !== version.md5)
        throw errors.invalidAttribute('/', 'The uploaded state does not match the md5 given when the state version was created');
      const parsed = parseState(bytes, '/');
      // The signed URL carries its creator's permission, so it ends with that permission: the
      // token must still be able to write this workspace's state.
      const creator = version.createdByToken ? await callerOfToken(version.createdByToken) : null;
      const seen = creator ? await workspaces.find(creator, { id: version.workspaceId }).catch(unseen) : null;
      if (!seen || !can(seen, 'write-state')) throw creatorLostAccess();
      await guarded(
        database.transaction(async (trx) => {
          // The very lock the creator held: not released since (even if taken again), nor anyone else's.
          const lock = await workspaceLocks.current(trx, version.workspaceId, true);
          if (!lock || lock.holderType !== version.lockHolderType || lock.holderId !== version.lockHolderId || lock.lockedAt !== version.lockLockedAt) {
            throw creatorLostLock();
          }
          const fresh = await store.findVersion(trx, id, true);
          if (!fresh || fresh.status !== 'pending') throw uploadUsedUp();
          await checkSequence(trx, version.workspaceId, version.serial, version.lineage ?? parsed.lineage, version.md5, version.force);
          if ((await store.finalize(trx, id, await storeState(trx, version, bytes, parsed))) !== 1) throw uploadUsedUp();
        }),
        { unique: uploadUsedUp, foreignKey: () => errors.notFound() },
      );
    },

    async show(caller: Caller, id: string): Promise<StateVersionView> {
      const { version } = await versionFor(caller, id, 'read-state');
      return (await views([version]))[0]!;
    },

    /**
     * The current state versions of workspaces the caller was shown (for `include=`), of those
     * whose state it may read: three queries however many there are.
     */
    async currentOfViews(
      shown: ReadonlyArray<Pick<WorkspaceBase, 'workspace' | 'permissions'> & { currentStateVersionId: string | null }>,
    ): Promise<StateVersionView[]> {
      const ids = shown.filter((v) => v.currentStateVersionId && v.permissions['can-read-state-versions']).map((v) => v.workspace.id);
      if (ids.length === 0) return [];
      return views([...(await store.currentVersions(db, ids)).values()]);
    },

    async current(caller: Caller, workspaceId: string): Promise<StateVersionView> {
      const found = await workspaces.find(caller, { id: workspaceId });
      authorize(found, 'read-state');
      const version = await store.currentVersion(db, found.workspace.id);
      if (!version) throw errors.notFound();
      return (await views([version]))[0]!;
    },

    /** The page, its outputs' ids and the count in one statement once the workspace is found. */
    async list(caller: Caller, organizationName: string, workspaceName: string, page: Page): Promise<{ items: ListedVersionView[]; total: number }> {
      const found = await workspaces.find(caller, { organizationName, name: workspaceName });
      authorize(found, 'read-state');
      return store.listVersions(db, found.workspace.id, page);
    },

    /**
     * The workspace's resources: the managed resource instances of its current state (none
     * without one), a page of them and how many there are. One query after the workspace's; a
     * version stored before migration 0038 is read from its state file, and not written back.
     */
    async resources(caller: Caller, workspaceId: string, page: Page): Promise<{ items: WorkspaceResourceView[]; total: number }> {
      const found = await workspaces.find(caller, { id: workspaceId });
      authorize(found, 'read-state');
      const row = await store.currentResourceInstances(db, found.workspace.id);
      const all = row ? await instancesOf(db, row, () => '') : [];
      const items = all
        .slice(page.offset, page.offset + page.size)
        .map((instance) => ({ id: derivedId('wsr', found.workspace.id, instance.address), instance }));
      return { items, total: all.length };
    },

    /** The state (or JSON state) of a version, as it was uploaded; 404 while it has none. */
    async download(caller: Caller, id: string, kind: BlobKind): Promise<Buffer> {
      const { version } = await versionFor(caller, id, 'read-state');
      const bytes = await blobs.get(blobKey(version.id, kind));
      if (bytes === undefined) throw errors.notFound();
      return bytes;
    },

    /**
     * Outputs of a version. go-tfe's test (run against TFE) reads a sensitive value from this
     * list, so it is shown here, but only to callers who may read the whole state (which holds
     * it anyway); `read-outputs` alone sees null, as in every other list.
     */
    async outputs(caller: Caller, id: string, page: Page | null) {
      const { version, found } = await versionFor(caller, id, 'read-state-outputs');
      const mayReadState = can(found, 'read-state');
      const { items, total } = await store.listOutputs(db, version.id, page);
      return { items: items.map((output) => ({ output, value: output.sensitive && !mayReadState ? undefined : openOutput(output) })), total };
    },

    /** The current version's outputs (none without one); sensitive values hidden. */
    async currentOutputs(caller: Caller, workspaceId: string): Promise<OutputView[]> {
      const found = await workspaces.find(caller, { id: workspaceId });
      authorize(found, 'read-state-outputs');
      const version = await store.currentVersion(db, found.workspace.id);
      if (!version) return [];
      return (await store.outputsOf(db, [version.id])).map((output) => ({ output, value: output.sensitive ? undefined : openOutput(output) }));
    },

    /** The same for `include=outputs` on a workspace: none when the caller may not read outputs. */
    async visibleCurrentOutputs(caller: Caller, workspaceId: string): Promise<OutputView[]> {
      const found = await workspaces.find(caller, { id: workspaceId });
      if (!can(found, 'read-state-outputs')) return [];
      const version = await store.currentVersion(db, found.workspace.id);
      return version ? this.outputsOfVersions([version.id]) : [];
    },

    /** One output, its value shown even when sensitive: the one place it is (Terraform reads it here). */
    async output(caller: Caller, outputId: string): Promise<OutputView> {
      const output = hasPrefix(outputId, 'wsout') ? await store.findOutput(db, outputId) : undefined;
      if (!output) throw errors.notFound();
      await versionFor(caller, output.stateVersionId, 'read-state-outputs');
      return { output, value: openOutput(output) };
    },

    /** Outputs of versions for the serializer of included outputs (sensitive values hidden). */
    async outputsOfVersions(versionIds: readonly string[]): Promise<OutputView[]> {
      return (await store.outputsOf(db, versionIds)).map((output) => ({ output, value: output.sensitive ? undefined : openOutput(output) }));
    },

    /** Whether the workspace's current state manages any resource (safe delete refuses then). */
    async managesResources(q: Queryable, workspaceId: string): Promise<boolean> {
      const current = await store.currentVersion(q, workspaceId);
      return (current?.resourceCount ?? 0) > 0;
    },

    /** The workspace's current state file, for a run about to execute (none: a new workspace). */
    async currentStateOf(workspaceId: string): Promise<Buffer | null> {
      const version = await store.currentVersion(db, workspaceId);
      if (!version || version.status !== 'finalized') return null;
      return (await blobs.get(blobKey(version.id, 'state'))) ?? null;
    },

    /**
     * The state an apply left: recorded as a new version of the workspace, written by the run.
     * No lock check (the runner applied the run's own plan, and what it changed must be recorded
     * even if the run was canceled meanwhile); the sequence checks still apply.
     */
    async writeFromRun(workspaceId: string, runId: string, bytes: Buffer): Promise<void> {
      if (bytes.length > MAX_STATE_BYTES) throw errors.payloadTooLarge(MAX_STATE_BYTES);
      const parsed = parseState(bytes, '/');
      const doc = JSON.parse(bytes.toString('utf8')) as { serial?: unknown };
      const serial = typeof doc.serial === 'number' ? doc.serial : 0;
      const version: StateVersion = {
        id: newId('sv'),
        workspaceId,
        serial,
        lineage: parsed.lineage,
        md5: md5Of(bytes),
        status: 'pending',
        position: null,
        stateSize: null,
        stateFormatVersion: null,
        terraformVersion: null,
        resources: null,
        resourceCount: null,
        providers: null,
        modules: null,
        billableRumCount: null,
        jsonStateUploaded: false,
        createdBy: null,
        runId,
        createdAt: now(),
        finalizedAt: null,
        // Made and finalized in one transaction by the run itself: no upload, so no lock to keep.
        force: false,
        lockHolderType: null,
        lockHolderId: null,
        lockLockedAt: null,
        createdByToken: null,
      };
      await database.transaction(async (trx) => {
        await workspaceLocks.current(trx, workspaceId, true);
        await checkSequence(trx, workspaceId, serial, parsed.lineage, version.md5, false);
        await store.insertVersion(trx, version);
        await store.finalize(trx, version.id, await storeState(trx, version, bytes, parsed));
      });
    },

    /** `hangar rotate-key`: reseals every output under the first key, batch by batch (state files are blobs, resealed by the blob store). */
    async rotateEncryption(): Promise<number> {
      const ring = keyring();
      let reencrypted = 0;
      let afterId = '';
      for (;;) {
        const batch = await database.transaction(async (trx) => {
          const rows = await store.staleOutputs(trx, ring.primaryPrefix, afterId, ROTATION_BATCH_SIZE);
          for (const r of rows) await store.replaceOutputValue(trx, r.id, ring.encrypt(ring.decrypt(r.sealedValue, outputAd(r.id)), outputAd(r.id)));
          return rows;
        });
        reencrypted += batch.length;
        if (batch.length < ROTATION_BATCH_SIZE) break;
        afterId = batch[batch.length - 1]!.id;
      }
      return reencrypted;
    },
  };
}

export type StateVersionsService = ReturnType<typeof createStateVersionsService>;
