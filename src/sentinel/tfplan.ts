// The `tfplan/v2` import built from `terraform show -json PLANFILE` output, the way HCP Terraform
// shapes it: collections keyed by address instead of lists. Covered:
//   terraform_version, variables (name → {name, value}),
//   planned_values.outputs and planned_values.resources (every module flattened, keyed by address),
//   resource_changes and resource_drift (keyed by address, or "address:deposed_key" for a deposed
//   object; module_address "" at the root; deposed "" when not deposed),
//   output_changes (name → {name, change}), and raw (the JSON document itself).
// Not covered: the `tfplan/v2` functions HCP adds beyond data (there are none in v2), and
// sensitive-value redaction (the values are used as they are in the JSON).

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const obj = (x: Json | undefined): Obj => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});
const list = (x: Json | undefined): Json[] => (Array.isArray(x) ? x : []);

function change(rc: Obj): Obj {
  const c = obj(rc.change);
  return {
    actions: list(c.actions),
    before: c.before ?? null,
    after: c.after ?? null,
    after_unknown: c.after_unknown ?? {},
    before_sensitive: c.before_sensitive ?? false,
    after_sensitive: c.after_sensitive ?? false,
  };
}

function changes(items: Json[]): Obj {
  const out: Obj = {};
  for (const item of items) {
    const rc = obj(item);
    const address = String(rc.address ?? '');
    const deposed = typeof rc.deposed === 'string' ? rc.deposed : '';
    const key = deposed ? `${address}:${deposed}` : address;
    out[key] = {
      address,
      module_address: rc.module_address ?? '',
      mode: rc.mode ?? 'managed',
      type: rc.type ?? '',
      name: rc.name ?? '',
      index: rc.index ?? null,
      provider_name: rc.provider_name ?? '',
      deposed,
      change: change(rc),
    };
  }
  return out;
}

function plannedResources(module: Obj, into: Obj): void {
  for (const item of list(module.resources)) {
    const r = obj(item);
    into[String(r.address ?? '')] = {
      address: r.address ?? '',
      module_address: module.address ?? '',
      mode: r.mode ?? 'managed',
      type: r.type ?? '',
      name: r.name ?? '',
      index: r.index ?? null,
      provider_name: r.provider_name ?? '',
      values: r.values ?? {},
      depends_on: r.depends_on ?? [],
      tainted: r.tainted ?? false,
      deposed_key: r.deposed_key ?? '',
    };
  }
  for (const child of list(module.child_modules)) plannedResources(obj(child), into);
}

/** The data of the `tfplan/v2` import for a plan in `terraform show -json` form. */
export function tfplanFromJson(plan: unknown): Obj {
  const p = obj(plan as Json);
  const variables: Obj = {};
  for (const [name, v] of Object.entries(obj(p.variables))) variables[name] = { name, value: obj(v).value ?? null };
  const planned = obj(p.planned_values);
  const resources: Obj = {};
  plannedResources(obj(planned.root_module), resources);
  const outputChanges: Obj = {};
  for (const [name, c] of Object.entries(obj(p.output_changes))) outputChanges[name] = { name, change: change({ change: c }) };
  return {
    terraform_version: p.terraform_version ?? '',
    variables,
    planned_values: { outputs: obj(planned.outputs), resources },
    resource_changes: changes(list(p.resource_changes)),
    resource_drift: changes(list(p.resource_drift)),
    output_changes: outputChanges,
    raw: p,
  };
}
