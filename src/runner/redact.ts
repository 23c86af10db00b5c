// Keeping sensitive values out of what a run leaves behind: its log lines and its JSON plan.
// Terraform masks sensitive values in its own output; these are the second line of defence.

export const REDACTED = '(sensitive value)';

/** Replaces every occurrence of each secret in `text` (longest first, so none is half-replaced). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0 && out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `value` with every part `mask` marks `true` (Terraform's `*_sensitive` shapes) replaced. */
function masked(value: unknown, mask: unknown): unknown {
  if (mask === true) return REDACTED;
  if (Array.isArray(value) && Array.isArray(mask)) return value.map((v, i) => masked(v, mask[i]));
  if (isObject(value) && isObject(mask)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, mask[k])]));
  return value;
}

function redactModule(module: unknown): void {
  if (!isObject(module)) return;
  for (const r of Array.isArray(module.resources) ? module.resources : []) {
    if (isObject(r) && 'values' in r) r.values = masked(r.values, r.sensitive_values);
  }
  for (const child of Array.isArray(module.child_modules) ? module.child_modules : []) redactModule(child);
}

function redactValues(values: unknown): void {
  if (!isObject(values)) return;
  redactModule(values.root_module);
  if (isObject(values.outputs)) {
    for (const o of Object.values(values.outputs)) if (isObject(o) && o.sensitive === true) o.value = REDACTED;
  }
}

/**
 * `terraform show -json` of a plan, with sensitive variables, sensitive attributes and outputs
 * replaced, and any remaining occurrence of a sensitive value's text scrubbed.
 */
export function redactPlanJson(json: string, secrets: readonly string[]): string {
  const plan = JSON.parse(json) as Record<string, unknown>;
  const declared = ((plan.configuration as any)?.root_module?.variables ?? {}) as Record<string, { sensitive?: boolean }>;
  if (isObject(plan.variables)) {
    for (const [name, v] of Object.entries(plan.variables)) {
      if (isObject(v) && (declared[name]?.sensitive || (typeof v.value === 'string' && secrets.includes(v.value)))) v.value = REDACTED;
    }
  }
  redactValues(plan.planned_values);
  redactValues((plan.prior_state as any)?.values);
  for (const rc of Array.isArray(plan.resource_changes) ? plan.resource_changes : []) {
    const change = isObject(rc) ? rc.change : undefined;
    if (!isObject(change)) continue;
    change.before = masked(change.before, change.before_sensitive);
    change.after = masked(change.after, change.after_sensitive);
  }
  if (isObject(plan.output_changes)) {
    for (const c of Object.values(plan.output_changes)) {
      if (!isObject(c)) continue;
      c.before = masked(c.before, c.before_sensitive);
      c.after = masked(c.after, c.after_sensitive);
    }
  }
  return scrub(JSON.stringify(plan), secrets);
}

/** Resource counts of a plan, as TFE reports them. */
export function countChanges(json: string): { additions: number; changes: number; destructions: number; imports: number } {
  const plan = JSON.parse(json) as { resource_changes?: Array<{ change?: { actions?: string[]; importing?: unknown } }> };
  const counts = { additions: 0, changes: 0, destructions: 0, imports: 0 };
  for (const rc of plan.resource_changes ?? []) {
    const actions = rc.change?.actions ?? [];
    if (actions.includes('create')) counts.additions++;
    if (actions.includes('update')) counts.changes++;
    if (actions.includes('delete')) counts.destructions++;
    if (rc.change?.importing) counts.imports++;
  }
  return counts;
}
