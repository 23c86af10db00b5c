// The `tfconfig/v2` import built from the `configuration` section of `terraform show -json PLANFILE`,
// the way HCP Terraform shapes it: every module flattened into one collection per kind, keyed by
// address, with a child module's items prefixed by its module address:
//   providers      "aws", "module.m:aws"                 (the plan's provider_config keys)
//   resources      "aws_instance.x", "module.m.aws_instance.x"
//   provisioners   "aws_instance.x:0"                    (resource address : position)
//   variables, outputs, module_calls   "name", "module.m:name"
// Expressions (`config`, `count`, `for_each`, an output's `value`) are Terraform's expression
// objects as they are: `{constant_value: …}` or `{references: […]}`, nested blocks as lists of them.
import { list, obj, str, type Json, type Obj, put } from './json.ts';

const key = (moduleAddress: string, name: string) => (moduleAddress ? `${moduleAddress}:${name}` : name);

interface Collections {
  resources: Obj;
  provisioners: Obj;
  variables: Obj;
  outputs: Obj;
  module_calls: Obj;
}

function walk(module: Obj, moduleAddress: string, into: Collections): void {
  for (const item of list(module.resources)) {
    const r = obj(item);
    const address = moduleAddress ? `${moduleAddress}.${str(r.address)}` : str(r.address);
    const provisioners: Json[] = list(r.provisioners).map((p, i) => {
      const prov: Obj = { resource_address: address, type: obj(p).type ?? '', index: String(i), config: obj(p).expressions ?? {} };
      put(into.provisioners, `${address}:${i}`, prov);
      return prov;
    });
    put(into.resources, address, {
      address,
      module_address: moduleAddress,
      mode: r.mode ?? 'managed',
      type: r.type ?? '',
      name: r.name ?? '',
      provider_config_key: r.provider_config_key ?? '',
      config: r.expressions ?? {},
      count: r.count_expression ?? {},
      for_each: r.for_each_expression ?? {},
      depends_on: r.depends_on ?? [],
      provisioners,
    });
  }
  for (const [name, v] of Object.entries(obj(module.variables))) {
    const variable = obj(v);
    put(into.variables, key(moduleAddress, name), {
      name,
      module_address: moduleAddress,
      // A variable without a default is required: HCP shows its default as null.
      default: 'default' in variable ? variable.default! : null,
      description: variable.description ?? '',
    });
  }
  for (const [name, v] of Object.entries(obj(module.outputs))) {
    const output = obj(v);
    put(into.outputs, key(moduleAddress, name), {
      name,
      module_address: moduleAddress,
      value: output.expression ?? {},
      description: output.description ?? '',
      sensitive: output.sensitive ?? false,
      depends_on: output.depends_on ?? [],
    });
  }
  for (const [name, v] of Object.entries(obj(module.module_calls))) {
    const call = obj(v);
    put(into.module_calls, key(moduleAddress, name), {
      name,
      module_address: moduleAddress,
      source: call.source ?? '',
      version_constraint: call.version_constraint ?? '',
      config: call.expressions ?? {},
      count: call.count_expression ?? {},
      for_each: call.for_each_expression ?? {},
      depends_on: call.depends_on ?? [],
    });
    walk(obj(call.module), moduleAddress ? `${moduleAddress}.module.${name}` : `module.${name}`, into);
  }
}

/**
 * The data of the `tfconfig/v2` import, from a plan in `terraform show -json` form (its
 * `configuration` section is read; a bare configuration object is accepted too).
 */
export function tfconfigFromJson(plan: unknown): Obj {
  const p = obj(plan);
  const configuration = 'configuration' in p ? obj(p.configuration) : p;
  const providers: Obj = {};
  for (const [providerKey, v] of Object.entries(obj(configuration.provider_config))) {
    const provider = obj(v);
    put(providers, providerKey, {
      name: provider.name ?? '',
      full_name: provider.full_name ?? '',
      alias: provider.alias ?? '',
      module_address: provider.module_address ?? '',
      provider_config_key: providerKey,
      version_constraint: provider.version_constraint ?? '',
      config: provider.expressions ?? {},
    });
  }
  const collections: Collections = { resources: {}, provisioners: {}, variables: {}, outputs: {}, module_calls: {} };
  walk(obj(configuration.root_module), '', collections);
  return { providers, ...collections };
}
