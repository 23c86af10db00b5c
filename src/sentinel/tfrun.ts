// The `tfrun` import: the run a policy check belongs to, in the shape HCP Terraform gives it. The
// caller (a policy check of a run, or `hangar sentinel apply --run`) describes the run; anything it
// leaves out takes the value of a plain, non-speculative plan-and-apply run.
import { list, obj, type Json, type Obj, put } from './json.ts';

export interface RunDescription {
  id?: string;
  created_at?: string;
  created_by?: string;
  message?: string;
  commit_sha?: string | null;
  speculative?: boolean;
  is_destroy?: boolean;
  refresh?: boolean;
  refresh_only?: boolean;
  replace_addrs?: string[] | null;
  target_addrs?: string[] | null;
  /** Run variables by key: HCP shows each as {category, sensitive}, never its value. */
  variables?: Record<string, { category?: string; sensitive?: boolean }>;
  organization?: { name?: string };
  project?: { id?: string; name?: string };
  workspace?: {
    id?: string;
    name?: string;
    created_at?: string;
    description?: string | null;
    execution_mode?: string;
    auto_apply?: boolean;
    tags?: string[];
    tag_bindings?: { key: string; value: string }[];
    working_directory?: string;
    vcs_repo?: { identifier?: string; display_identifier?: string; branch?: string; ingress_submodules?: boolean } | null;
  };
  /** Cost estimation is not run by Hangar: null unless the caller has one. */
  cost_estimate?: { prior_monthly_cost?: string; proposed_monthly_cost?: string; delta_monthly_cost?: string } | null;
}

const orNull = (x: unknown): Json => (x === undefined ? null : (x as Json));

/** The data of the `tfrun` import for a run description (a JSON-like object). */
export function tfrunFromRun(run: unknown): Obj {
  const r = obj(run);
  const ws = obj(r.workspace);
  const vcs = r.workspace && ws.vcs_repo ? obj(ws.vcs_repo) : null;
  const variables: Obj = {};
  for (const [name, v] of Object.entries(obj(r.variables))) {
    put(variables, name, { category: obj(v).category ?? 'terraform', sensitive: obj(v).sensitive ?? false });
  }
  const data: Obj = {
    id: r.id ?? '',
    created_at: r.created_at ?? '',
    created_by: orNull(r.created_by),
    message: r.message ?? '',
    commit_sha: orNull(r.commit_sha),
    speculative: r.speculative ?? false,
    is_destroy: r.is_destroy ?? false,
    refresh: r.refresh ?? true,
    refresh_only: r.refresh_only ?? false,
    replace_addrs: r.replace_addrs == null ? null : list(r.replace_addrs),
    target_addrs: r.target_addrs == null ? null : list(r.target_addrs),
    variables,
    organization: { name: obj(r.organization).name ?? '' },
    workspace: {
      id: ws.id ?? '',
      name: ws.name ?? '',
      created_at: ws.created_at ?? '',
      description: orNull(ws.description),
      execution_mode: ws.execution_mode ?? 'remote',
      auto_apply: ws.auto_apply ?? false,
      tags: list(ws.tags),
      tag_bindings: list(ws.tag_bindings),
      working_directory: ws.working_directory ?? '',
      vcs_repo: vcs && {
        identifier: vcs.identifier ?? '',
        display_identifier: vcs.display_identifier ?? vcs.identifier ?? '',
        branch: vcs.branch ?? '',
        ingress_submodules: vcs.ingress_submodules ?? false,
      },
    },
    cost_estimate: r.cost_estimate ? obj(r.cost_estimate) : null,
  };
  if (r.project) data.project = { id: obj(r.project).id ?? '', name: obj(r.project).name ?? '' };
  return data;
}
