// The `version` import: versions as HashiCorp tools read them ("1.2", "v1.2.3-beta.1+build"),
// ordering with pre-releases before releases, and constraints ("~> 1.2, != 1.2.5").
import { fn } from './hostfn.ts';
import { RecordObject, SObject, typeOf, type CallContext, type Value } from './values.ts';

const VERSION = /^v?(\d+(?:\.\d+)*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/;

export class Version extends SObject {
  readonly typeName = 'version';
  readonly text: string;
  readonly segments: number[];
  readonly prerelease: string;
  readonly metadata: string;
  constructor(text: string, segments: number[], prerelease: string, metadata: string) {
    super();
    this.text = text;
    this.segments = segments;
    this.prerelease = prerelease;
    this.metadata = metadata;
  }

  static parse(text: string): Version | null {
    const m = VERSION.exec(text.trim());
    if (!m) return null;
    const segs = m[1]!.split('.').map(Number);
    while (segs.length < 3) segs.push(0);
    return new Version(text.trim(), segs, m[2] ?? '', m[3] ?? '');
  }

  static from(v: Value, ctx: CallContext): Version {
    if (v instanceof Version) return v;
    if (typeof v === 'string') {
      const parsed = Version.parse(v);
      if (parsed) return parsed;
      return ctx.fail(`version: malformed version ${JSON.stringify(v)}`);
    }
    return ctx.fail(`version: expected a version string, got ${typeOf(v)}`);
  }

  compare(o: Version): number {
    const n = Math.max(this.segments.length, o.segments.length);
    for (let i = 0; i < n; i++) {
      const a = this.segments[i] ?? 0;
      const b = o.segments[i] ?? 0;
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.prerelease === o.prerelease) return 0;
    if (!this.prerelease) return 1;
    if (!o.prerelease) return -1;
    const pa = this.prerelease.split('.');
    const pb = o.prerelease.split('.');
    for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
      const a = pa[i];
      const b = pb[i];
      if (a === undefined) return -1;
      if (b === undefined) return 1;
      if (a === b) continue;
      const na = /^\d+$/.test(a);
      const nb = /^\d+$/.test(b);
      if (na && nb) return Number(a) < Number(b) ? -1 : 1;
      if (na !== nb) return na ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return 0;
  }

  satisfies(constraints: string, ctx: CallContext): boolean {
    for (const raw of constraints.split(',')) {
      const m = /^\s*(=|!=|>=|<=|>|<|~>)?\s*(\S+)\s*$/.exec(raw);
      const target = m ? Version.parse(m[2]!) : null;
      if (!m || !target) return ctx.fail(`version: malformed constraint ${JSON.stringify(constraints)}`);
      const c = this.compare(target);
      // A pre-release only satisfies a constraint that names a pre-release of the same version.
      if (this.prerelease && !(target.prerelease && this.segments.slice(0, 3).join('.') === target.segments.slice(0, 3).join('.'))) return false;
      switch (m[1] ?? '=') {
        case '=':
          if (c !== 0) return false;
          break;
        case '!=':
          if (c === 0) return false;
          break;
        case '>':
          if (c <= 0) return false;
          break;
        case '<':
          if (c >= 0) return false;
          break;
        case '>=':
          if (c < 0) return false;
          break;
        case '<=':
          if (c > 0) return false;
          break;
        case '~>': {
          if (c < 0) return false;
          // ~> 1.2.3 allows 1.2.x; ~> 1.2 allows 1.x: every written segment but the last must match.
          const written = m[2]!.replace(/^v/, '').split(/[-+]/)[0]!.split('.').length;
          for (let i = 0; i < Math.max(1, written - 1); i++) if (this.segments[i] !== target.segments[i]) return false;
          break;
        }
      }
    }
    return true;
  }

  get(name: string): Value {
    const other = (label: string, op: (o: Version) => Value) => fn(`version.${label}`, 1, ([v], c) => (v === undefined ? undefined : op(Version.from(v, c))));
    switch (name) {
      case 'major':
        return this.segments[0];
      case 'minor':
        return this.segments[1];
      case 'patch':
        return this.segments[2];
      case 'prerelease':
        return this.prerelease;
      case 'metadata':
        return this.metadata;
      case 'segments':
        return [...this.segments];
      case 'version':
      case 'string':
        return this.text.replace(/^v/, '');
      // The import's page names these `greater_than_or_equals`, `equals` … with the short forms
      // `gt`, `gte`, `lt`, `lte`, `eq`, `cmp` and `sat`; `equal` and `…_or_equal` are kept too.
      case 'compare':
      case 'cmp':
        return other(name, (o) => this.compare(o));
      case 'equal':
      case 'equals':
      case 'eq':
        return other(name, (o) => this.compare(o) === 0);
      case 'greater_than':
      case 'gt':
        return other(name, (o) => this.compare(o) > 0);
      case 'greater_than_or_equal':
      case 'greater_than_or_equals':
      case 'gte':
        return other(name, (o) => this.compare(o) >= 0);
      case 'less_than':
      case 'lt':
        return other(name, (o) => this.compare(o) < 0);
      case 'less_than_or_equal':
      case 'less_than_or_equals':
      case 'lte':
        return other(name, (o) => this.compare(o) <= 0);
      case 'satisfies':
      case 'sat':
        return fn('version.satisfies', 1, ([c], ctx) => {
          if (c === undefined) return undefined;
          if (typeof c !== 'string') return ctx.fail('version.satisfies: the constraint must be a string');
          return this.satisfies(c, ctx);
        });
    }
    return undefined;
  }
  override toString(): string {
    return this.text;
  }
}

export function versionImport(): SObject {
  return new RecordObject('import', {
    new: fn('version.new', 1, ([v], ctx) => (v === undefined ? undefined : Version.from(v, ctx))),
  });
}
