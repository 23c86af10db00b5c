// What a policy set version holds, read from its archive: the policies, modules and parameters
// its configuration file declares, each source file checked to be in the archive and kept
// (Sentinel sources are small), so that evaluating the version never unpacks the archive again.
import { normalizePath } from './archive.ts';
import { HclError, parseHcl, type HclBlock, type HclValue } from './sentinel-hcl.ts';

export type VersionKind = 'sentinel' | 'opa';

export interface ManifestPolicy {
  name: string;
  /** The path in the archive (Sentinel), or null (OPA: policies are matched by query). */
  path: string | null;
  enforcementLevel: string;
  /** OPA only. */
  query: string | null;
  source: string | null;
}

export interface Manifest {
  policies: ManifestPolicy[];
  modules: Array<{ name: string; path: string; source: string }>;
  /** `import "static"` data, parsed; absent from manifests stored before static imports were read. */
  statics?: Array<{ name: string; path: string; data: unknown }>;
  params: Array<{ name: string; value: HclValue }>;
}

/** Why an archive's configuration was refused: the version's `error`. */
export class ManifestError extends Error {}

const CONFIG_FILE: Record<VersionKind, string> = { sentinel: 'sentinel.hcl', opa: 'policies.hcl' };
const LEVELS: Record<VersionKind, readonly string[]> = {
  sentinel: ['advisory', 'soft-mandatory', 'hard-mandatory'],
  opa: ['advisory', 'mandatory'],
};
const DEFAULT_LEVEL: Record<VersionKind, string> = { sentinel: 'hard-mandatory', opa: 'advisory' };
const NAME = /^[A-Za-z0-9_-]+$/;
const MAX_STATIC_BYTES = 1024 * 1024;

export function readManifest(kind: VersionKind, files: ReadonlyMap<string, Buffer>): Manifest {
  const file = CONFIG_FILE[kind];
  const config = files.get(file);
  if (!config) throw new ManifestError(`The archive has no ${file} at its root`);
  let blocks: HclBlock[];
  try {
    blocks = parseHcl(config.toString('utf8')).blocks;
  } catch (e) {
    if (e instanceof HclError) throw new ManifestError(`${file}: ${e.message}`);
    throw e;
  }
  const fail = (block: HclBlock, what: string): never => {
    throw new ManifestError(`${file}: line ${block.line}: ${what}`);
  };
  const label = (block: HclBlock): string => {
    if (block.labels.length !== 1) fail(block, `a ${block.type} block takes one label, its name`);
    const name = block.labels[0]!;
    if (!NAME.test(name)) fail(block, `${block.type} name ${JSON.stringify(name)} may only contain letters, numbers, "-" and "_"`);
    return name;
  };
  const text = (block: HclBlock, attribute: string, required: boolean): string | undefined => {
    const found = block.body.attributes.get(attribute);
    if (!found) return required ? fail(block, `${block.type} "${block.labels[0]}" needs ${attribute}`) : undefined;
    if (typeof found.value !== 'string') fail(block, `${attribute} must be a string`);
    return found.value as string;
  };
  /** A source path inside the archive (relative to its root, where the configuration file is). */
  const sourceFile = (block: HclBlock, required: boolean): { path: string; source: string } | undefined => {
    const source = text(block, 'source', required);
    if (source === undefined) return undefined;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || source.includes('::')) fail(block, `remote sources are not supported (${source})`);
    const path = normalizePath(source);
    if (!path) fail(block, `source ${JSON.stringify(source)} points outside the archive`);
    const bytes = files.get(path!);
    if (!bytes) fail(block, `source ${JSON.stringify(source)} is not in the archive`);
    return { path: path!, source: bytes!.toString('utf8') };
  };

  const manifest: Manifest = { policies: [], modules: [], statics: [], params: [] };
  const seen = { policy: new Set<string>(), module: new Set<string>(), param: new Set<string>() };
  const importName = (block: HclBlock, name: string): string => {
    if (!NAME.test(name)) fail(block, `import name ${JSON.stringify(name)} may only contain letters, numbers, "-" and "_"`);
    // Modules and static data share one namespace: both are what `import "name"` finds.
    if (seen.module.has(name)) fail(block, `import "${name}" is declared twice`);
    seen.module.add(name);
    return name;
  };
  for (const block of blocks) {
    // Sentinel's current spelling of modules and data: `import "module" "name" { source = … }`,
    // `import "static" "name" { source = "x.json", format = "json" }`. Plugins are programs,
    // which Hangar never runs; a policy importing one fails its check as an unknown import.
    if (block.type === 'import' && kind === 'sentinel') {
      if (block.labels.length !== 2) fail(block, 'an import block takes two labels, its kind and its name');
      const [importKind, rawName] = block.labels as [string, string];
      if (importKind === 'module') manifest.modules.push({ name: importName(block, rawName), ...sourceFile(block, true)! });
      else if (importKind === 'static') {
        const name = importName(block, rawName);
        const format = text(block, 'format', false) ?? 'json';
        if (format !== 'json') fail(block, `import "static" "${name}": format ${JSON.stringify(format)} is not supported (only "json")`);
        const file = sourceFile(block, true)!;
        // Kept parsed in the version's manifest and handed to every check: a bound, not a blob.
        if (Buffer.byteLength(file.source) > MAX_STATIC_BYTES)
          fail(block, `import "static" "${name}": ${file.path} is larger than ${MAX_STATIC_BYTES / 1024 / 1024} MiB`);
        let data: unknown;
        try {
          data = JSON.parse(file.source);
        } catch {
          fail(block, `import "static" "${name}": ${file.path} is not JSON`);
        }
        if (typeof data !== 'object' || data === null || Array.isArray(data)) fail(block, `import "static" "${name}": ${file.path} must hold a JSON object`);
        manifest.statics!.push({ name, path: file.path, data });
      }
      continue;
    }
    if (block.type !== 'policy' && block.type !== 'module' && block.type !== 'param') continue;
    const name = block.type === 'module' ? importName(block, label(block)) : label(block);
    if (block.type !== 'module' && seen[block.type].has(name)) fail(block, `${block.type} "${name}" is declared twice`);
    seen[block.type].add(name);
    if (block.type === 'policy') {
      const level = text(block, 'enforcement_level', false) ?? DEFAULT_LEVEL[kind];
      if (!LEVELS[kind].includes(level)) fail(block, `enforcement_level must be one of ${LEVELS[kind].join(', ')}`);
      const file = sourceFile(block, kind === 'sentinel');
      manifest.policies.push({
        name,
        path: file?.path ?? null,
        enforcementLevel: level,
        query: kind === 'opa' ? (text(block, 'query', true) ?? null) : null,
        source: file?.source ?? null,
      });
    } else if (block.type === 'module') {
      const file = sourceFile(block, true)!;
      manifest.modules.push({ name, ...file });
    } else {
      const found = block.body.attributes.get('value');
      if (!found) fail(block, `param "${name}" needs value`);
      manifest.params.push({ name, value: found!.value });
    }
  }
  return manifest;
}
