// The `tfplan/v2` import built from `terraform show -json PLANFILE` output, the way HCP Terraform
// shapes it: collections keyed by address instead of lists. Covered:
//   terraform_version, variables (name → {name, value}),
//   planned_values.outputs (name → {name, sensitive, value}; value absent when unknown) and
//   planned_values.resources (every module flattened, keyed by address),
//   resource_changes and resource_drift (keyed by address, or "address:deposed_key" for a deposed
//   object; module_address "" at the root; deposed "" when not deposed),
//   output_changes (name → {name, change}), and raw (the JSON document itself).
// Not covered: sensitive-value redaction (the values are used as they are in the JSON).
import { list, obj, str, type Json, type Obj, put } from './json.ts';
import { flattenResources, outputValues } from './tfstate.ts';

function change(c: Obj): Obj {
  const out: Obj = {
    actions: list(c.actions),
    before: c.before ?? null,
    after_unknown: c.after_unknown ?? {},
    before_sensitive: c.before_sensitive ?? false,
    after_sensitive: c.after_sensitive ?? false,
  };
  // Terraform leaves `after` out when it is wholly unknown (an output computed at apply): HCP
  // shows that as undefined, not null.
  if ('after' in c) out.after = c.after as Json;
  return out;
}

function changes(items: Json[]): Obj {
  const out: Obj = {};
  for (const item of items) {
    const rc = obj(item);
    const address = str(rc.address);
    const deposed = str(rc.deposed);
    put(out, deposed ? `${address}:${deposed}` : address, {
      address,
      module_address: rc.module_address ?? '',
      mode: rc.mode ?? 'managed',
      type: rc.type ?? '',
      name: rc.name ?? '',
      index: rc.index ?? null,
      provider_name: rc.provider_name ?? '',
      deposed,
      change: change(obj(rc.change)),
    });
  }
  return out;
}

/** The data of the `tfplan/v2` import for a plan in `terraform show -json` form. */
export function tfplanFromJson(plan: unknown): Obj {
  const p = obj(plan);
  const variables: Obj = {};
  for (const [name, v] of Object.entries(obj(p.variables))) put(variables, name, { name, value: obj(v).value ?? null });
  const planned = obj(p.planned_values);
  const outputChanges: Obj = {};
  for (const [name, c] of Object.entries(obj(p.output_changes))) put(outputChanges, name, { name, change: change(obj(c)) });
  return {
    terraform_version: p.terraform_version ?? '',
    variables,
    planned_values: { outputs: outputValues(obj(planned.outputs)), resources: flattenResources(obj(planned.root_module)) },
    resource_changes: changes(list(p.resource_changes)),
    resource_drift: changes(list(p.resource_drift)),
    output_changes: outputChanges,
    raw: p,
  };
}
