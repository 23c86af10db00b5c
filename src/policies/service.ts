// Policies: one Sentinel (or OPA) source each, with the level at which a failure stops a run.
// Policy sets hold them (policy-sets/ owns that link and tells this domain which sets hold a
// policy). Hangar evaluates Sentinel; OPA policies are kept and served as TFE keeps them, so a
// client's configuration round-trips, but no run evaluates them.
import type { Caller } from '../auth/caller.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { errors, type Problem } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import { now } from '../time.ts';
import { checkAttributes, Name } from '../values.ts';
import * as store from './store.ts';
import type { EnforcementLevel, Policy, PolicyKind } from './store.ts';

export type { EnforcementLevel, Policy, PolicyKind };

/** The largest policy source accepted (Sentinel files are a few kilobytes). */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/** The levels each kind knows, as TFE has them. */
export const LEVELS: Record<PolicyKind, readonly EnforcementLevel[]> = {
  sentinel: ['advisory', 'soft-mandatory', 'hard-mandatory'],
  opa: ['advisory', 'mandatory'],
};
const DEFAULT_LEVEL: Record<PolicyKind, EnforcementLevel> = { sentinel: 'hard-mandatory', opa: 'mandatory' };
const EXTENSION: Record<PolicyKind, string> = { sentinel: 'sentinel', opa: 'rego' };

/** The file name a policy's `enforce` names: the one its client gave, or one made of its name. */
export const enforcePathOf = (p: Policy) => p.enforcePath ?? `${p.name}.${EXTENSION[p.kind]}`;

/** One entry of the legacy `enforce` array. */
export interface EnforceInput {
  path?: string | null;
  mode?: string | null;
}

export interface PolicyInput {
  name?: string;
  description?: string | null;
  kind?: PolicyKind;
  query?: string | null;
  enforce?: EnforceInput[];
  enforcementLevel?: string;
}

export interface PolicyView {
  policy: Policy;
  organizationName: string;
  policySetIds: string[];
}

/** Which policy sets hold each of several policies (one query): the policy-sets domain answers. */
export type PolicySetReader = (q: Queryable, policyIds: readonly string[]) => Promise<Map<string, string[]>>;

export function createPoliciesService(deps: { database: Database; organizationLookup: OrganizationLookup }) {
  const db = deps.database.db;
  let setsOf: PolicySetReader = async () => new Map();

  async function views(q: Queryable, policies: readonly Policy[], organizationName: string): Promise<PolicyView[]> {
    const sets = await setsOf(
      q,
      policies.map((p) => p.id),
    );
    return policies.map((policy) => ({ policy, organizationName, policySetIds: sets.get(policy.id) ?? [] }));
  }

  /** 404 when absent or not the caller's to see; 403 when seen but `action` is not allowed. */
  async function find(caller: Caller, id: string, action: 'read-policies' | 'manage-policies') {
    const policy = hasPrefix(id, 'pol') ? await store.findPolicy(db, id) : undefined;
    if (!policy) throw errors.notFound();
    const { org } = await deps.organizationLookup.findById(caller, policy.organizationId, action);
    return { policy, organizationName: org.name };
  }

  /**
   * The level a body asks for, from `enforcement-level` or the legacy `enforce` array (one entry:
   * a policy is one file). Undefined when the body names neither.
   */
  function levelOf(input: PolicyInput, kind: PolicyKind): { level?: EnforcementLevel; path?: string } {
    const problems: Problem[] = [];
    const allowed = LEVELS[kind];
    const check = (value: string, pointer: string) => {
      if (!allowed.includes(value as EnforcementLevel))
        problems.push({ pointer, detail: `Enforcement level must be one of ${allowed.join(', ')} for ${kind} policies` });
    };
    if (input.enforce !== undefined && input.enforcementLevel !== undefined) {
      throw errors.invalidAttribute('/data/attributes/enforce', 'Send either enforce or enforcement-level, not both');
    }
    if (input.enforcementLevel !== undefined) {
      check(input.enforcementLevel, '/data/attributes/enforcement-level');
      if (problems.length) throw errors.invalid(problems);
      return { level: input.enforcementLevel as EnforcementLevel };
    }
    if (input.enforce === undefined) return {};
    if (input.enforce.length !== 1) throw errors.invalidAttribute('/data/attributes/enforce', 'A policy is one file: enforce must hold exactly one entry');
    const [entry] = input.enforce as [EnforceInput];
    if (!entry.mode) throw errors.invalidAttribute('/data/attributes/enforce/0/mode', "Enforcement mode can't be blank");
    check(entry.mode, '/data/attributes/enforce/0/mode');
    if (problems.length) throw errors.invalid(problems);
    return { level: entry.mode as EnforcementLevel, ...(entry.path ? { path: entry.path } : {}) };
  }

  return {
    /** Several policies' views, for a policy set's `included` (the caller's access is checked there). */
    views: async (q: Queryable, ids: readonly string[], organizationName: string) => views(q, await store.findPolicies(q, ids), organizationName),

    /** For the policy sets domain: which of `ids` are policies of the organization. */
    idsInOrganization: (organizationId: string, ids: readonly string[], q: Queryable = db) => store.idsInOrganization(q, organizationId, ids),

    /** For the policy-check runtime: the policies and their sources, with no caller to check. */
    async withSources(ids: readonly string[]): Promise<Array<{ policy: Policy; source: Uint8Array | null }>> {
      const policies = await store.findPolicies(db, ids);
      const sources = await store.readSources(db, ids);
      return policies.map((policy) => ({ policy, source: sources.get(policy.id) ?? null }));
    },

    /** Registered by the policy sets domain, which owns the link between sets and policies. */
    usePolicySetReader(reader: PolicySetReader) {
      setsOf = reader;
    },

    async list(caller: Caller, organizationName: string, filter: { search?: string; kind?: PolicyKind }, page: Page) {
      const { org } = await deps.organizationLookup.find(caller, organizationName, 'read-policies');
      const { items, total } = await store.listPolicies(db, { organizationId: org.id, ...filter }, page);
      return { items: await views(db, items, org.name), total };
    },

    async create(caller: Caller, organizationName: string, input: PolicyInput & { name: string }): Promise<PolicyView> {
      const { org } = await deps.organizationLookup.find(caller, organizationName, 'manage-policies');
      checkAttributes({ name: [Name, input.name] });
      const kind = input.kind ?? 'sentinel';
      if (kind === 'opa' && !input.query) throw errors.invalidAttribute('/data/attributes/query', "Query can't be blank for OPA policies");
      const { level, path } = levelOf(input, kind);
      const at = now();
      const policy: Policy = {
        id: newId('pol'),
        organizationId: org.id,
        name: input.name,
        description: input.description ?? null,
        kind,
        // Sentinel has no query; a client that sends one anyway has it ignored, as TFE does.
        query: kind === 'opa' ? input.query! : null,
        enforcementLevel: level ?? DEFAULT_LEVEL[kind],
        enforcePath: path ?? null,
        hasSource: false,
        createdAt: at,
        updatedAt: at,
      };
      await guarded(store.insertPolicy(db, policy), { unique: () => errors.taken('name') });
      return { policy, organizationName: org.name, policySetIds: [] };
    },

    async show(caller: Caller, id: string): Promise<PolicyView> {
      const { policy, organizationName } = await find(caller, id, 'read-policies');
      return (await views(db, [policy], organizationName))[0]!;
    },

    /** The name and kind never change; the path of `enforce` is the policy's own and is not moved. */
    async update(caller: Caller, id: string, input: PolicyInput): Promise<PolicyView> {
      const { policy, organizationName } = await find(caller, id, 'manage-policies');
      const { level } = levelOf(input, policy.kind);
      const patch = {
        description: input.description,
        query: policy.kind === 'opa' && input.query ? input.query : undefined,
        enforcementLevel: level,
      };
      const at = now();
      await store.updatePolicy(db, policy.id, { ...patch, updatedAt: at });
      const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      return (await views(db, [{ ...policy, ...defined, updatedAt: at }], organizationName))[0]!;
    },

    /** The sets holding it let it go (schema cascade). */
    async destroy(caller: Caller, id: string): Promise<void> {
      const { policy } = await find(caller, id, 'manage-policies');
      if ((await store.deletePolicy(db, policy.id)) === 0) throw errors.notFound();
    },

    /** Replaces the source; an empty upload is a source too (TFE accepts it). */
    async upload(caller: Caller, id: string, source: Uint8Array): Promise<void> {
      const { policy } = await find(caller, id, 'manage-policies');
      if (!(await store.storeSource(db, policy.id, source, now()))) throw errors.notFound();
    },

    /** The source as uploaded; 404 before the first upload. */
    async download(caller: Caller, id: string): Promise<Uint8Array> {
      const { policy } = await find(caller, id, 'read-policies');
      const source = await store.readSource(db, policy.id);
      if (source === undefined || source === null) throw errors.notFound();
      return source;
    },
  };
}

export type PoliciesService = ReturnType<typeof createPoliciesService>;
