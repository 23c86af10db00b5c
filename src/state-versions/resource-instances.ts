// A workspace's resources as TFE lists them (`GET /workspaces/:id/resources`): one entry per
// managed resource instance of the current state, each remembering the version that first held
// it and the last version that changed its attributes. Derived once, when a state is stored, from
// the state file and the previous current version's list; nothing here reads or writes a table.

/** One managed resource instance of a state, as the state file gives it. */
export interface StateInstance {
  address: string;
  /** The module path without `module.` (`a[0].b`), or `root`. */
  module: string;
  type: string;
  name: string;
  /** The instance key (`count` or `for_each`), or null without one. */
  index: number | string | null;
  /** The provider's source without its registry host (`hashicorp/aws`). */
  provider: string;
  /** The instance's attributes as JSON text, only to be digested: never stored nor shown. */
  attributes: string;
}

/** An instance as a version stores it (JSON text in `state_versions.resource_instances`). */
export interface StoredInstance extends Omit<StateInstance, 'attributes'> {
  /** A keyed digest of the attributes: equal digests, unchanged attributes. */
  hash: string;
  createdAt: string;
  updatedAt: string;
  /** The state version that last changed the instance's attributes (or first held it). */
  modifiedBy: string;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `provider["registry.terraform.io/hashicorp/aws"].west` → `hashicorp/aws`; the legacy `provider.aws` → `hashicorp/aws`. */
export function providerName(address: string): string {
  const quoted = /provider\["([^"]*)"\]/.exec(address);
  if (quoted) {
    const parts = quoted[1]!.split('/');
    return parts.length >= 3 ? parts.slice(-2).join('/') : quoted[1]!;
  }
  const legacy = /(?:^|\.)provider\.([A-Za-z0-9_-]+)/.exec(address);
  return legacy ? `hashicorp/${legacy[1]}` : address;
}

/**
 * `module.a[0].module.b["x.y"]` → `a[0].b["x.y"]`: each `module.` dropped, instance keys kept as
 * written (a key may hold dots, so the path is read step by step, not split). A path that does not
 * read as one is kept whole.
 */
export function modulePath(path: unknown): string {
  if (typeof path !== 'string' || path === '') return 'root';
  const step = /^module\.([A-Za-z0-9_-]+)(\[(?:\d+|"(?:[^"\\]|\\.)*")\])?(?:\.|$)/;
  const steps: string[] = [];
  let rest = path;
  while (rest !== '') {
    const m = step.exec(rest);
    if (!m) return path;
    steps.push(m[1]! + (m[2] ?? ''));
    rest = rest.slice(m[0].length);
  }
  return steps.join('.');
}

const indexSuffix = (index: number | string | null) => (index === null ? '' : typeof index === 'number' ? `[${index}]` : `[${JSON.stringify(index)}]`);

export const instanceAddress = (module: string, type: string, name: string, index: number | string | null) =>
  `${module === 'root' ? '' : `${module}.`}${type}.${name}${indexSuffix(index)}`;

/** The managed resource instances of a state document (data sources and deposed objects left out), once per address. */
export function stateInstances(doc: Record<string, unknown>): StateInstance[] {
  const byAddress = new Map<string, StateInstance>();
  for (const r of Array.isArray(doc.resources) ? doc.resources : []) {
    if (!isObject(r) || r.mode !== 'managed') continue;
    const type = String(r.type ?? '');
    const name = String(r.name ?? '');
    const module = modulePath(r.module);
    const provider = providerName(String(r.provider ?? ''));
    for (const i of Array.isArray(r.instances) ? r.instances : []) {
      // A deposed object is an older object of the same instance, waiting to be destroyed.
      if (!isObject(i) || i.deposed !== undefined) continue;
      const key = i.index_key;
      const index = typeof key === 'number' || typeof key === 'string' ? key : null;
      const address = instanceAddress(module, type, name, index);
      if (byAddress.has(address)) continue;
      byAddress.set(address, { address, module, type, name, index, provider, attributes: JSON.stringify(i.attributes ?? i.attributes_flat ?? null) });
    }
  }
  return [...byAddress.values()];
}

/**
 * The list a new version stores: an address the previous current version also held keeps its
 * creation, and its last change too while the attributes' digest is the same; everything else is
 * this version's.
 */
export function withHistory(
  instances: readonly StateInstance[],
  previous: readonly StoredInstance[],
  version: { id: string; at: string },
  digest: (attributes: string) => string,
): StoredInstance[] {
  const before = new Map(previous.map((p) => [p.address, p]));
  return instances.map(({ attributes, ...i }) => {
    const hash = digest(attributes);
    const old = before.get(i.address);
    const unchanged = old !== undefined && old.hash === hash;
    return {
      ...i,
      hash,
      createdAt: old?.createdAt ?? version.at,
      updatedAt: unchanged ? old.updatedAt : version.at,
      modifiedBy: unchanged ? old.modifiedBy : version.id,
    };
  });
}

/** A stored list read back; anything that is not one reads as empty. */
export function readStored(text: string): StoredInstance[] {
  const list: unknown = JSON.parse(text);
  return Array.isArray(list) ? (list as StoredInstance[]) : [];
}
