// The `tfstate/v2` import built from `terraform show -json` of a state (or a plan's `prior_state`),
// the way HCP Terraform shapes it: `terraform_version`; `resources` keyed by address (every module
// flattened; a deposed object under "address:deposed_key"); `outputs` keyed by name.
import { list, obj, str, type Json, type Obj, put } from './json.ts';

/** The resources of a module and its children, keyed by address, as `tfstate/v2` and `planned_values` show them. */
export function flattenResources(module: Obj, into: Obj = {}): Obj {
  for (const item of list(module.resources)) {
    const r = obj(item);
    const address = str(r.address);
    const deposed = str(r.deposed_key);
    put(into, deposed ? `${address}:${deposed}` : address, {
      address,
      module_address: str(module.address),
      mode: r.mode ?? 'managed',
      type: r.type ?? '',
      name: r.name ?? '',
      index: r.index ?? null,
      provider_name: r.provider_name ?? '',
      values: r.values ?? {},
      depends_on: r.depends_on ?? [],
      tainted: r.tainted ?? false,
      deposed_key: deposed,
    });
  }
  for (const child of list(module.child_modules)) flattenResources(obj(child), into);
  return into;
}

/** Output values keyed by name; an unknown value (absent in the JSON) stays absent, so a policy reads undefined. */
export function outputValues(outputs: Obj): Obj {
  const out: Obj = {};
  for (const [name, o] of Object.entries(outputs)) {
    const v = obj(o);
    const entry: Obj = { name, sensitive: v.sensitive ?? false };
    if ('value' in v) entry.value = v.value as Json;
    put(out, name, entry);
  }
  return out;
}

/** The data of the `tfstate/v2` import for a state in `terraform show -json` form (or a plan's `prior_state`). */
export function tfstateFromJson(state: unknown): Obj {
  const s = obj(state);
  const values = obj(s.values);
  return {
    terraform_version: s.terraform_version ?? '',
    resources: flattenResources(obj(values.root_module)),
    outputs: outputValues(obj(values.outputs)),
  };
}
