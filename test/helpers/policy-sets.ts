// Set-up helpers for the policy set and parameter suites.
import { unique, type TestContext } from './harness.ts';
import { createProject, createWorkspace } from './projects.ts';

export interface Org {
  name: string;
  owner: { id: string; username: string; token: string };
  defaultProjectId: string;
}

export function policySetBody(name: string, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) {
  return { data: { type: 'policy-sets', attributes: { name, ...attributes }, ...(relationships ? { relationships } : {}) } };
}

export const projectRefs = (...ids: string[]) => ({ data: ids.map((id) => ({ id, type: 'projects' })) });
export const workspaceRefs = (...ids: string[]) => ({ data: ids.map((id) => ({ id, type: 'workspaces' })) });

/** A new policy set in `org`, created by its owner; returns the JSON:API resource. */
export async function createPolicySet(ctx: TestContext, org: Org, attributes: Record<string, unknown> = {}) {
  const res = await ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, org.owner.token, policySetBody(unique('ps'), attributes));
  if (res.status !== 201) throw new Error(`policy set create failed: ${res.status} ${res.raw}`);
  return res.body.data;
}

export function parameterBody(attributes: Record<string, unknown>) {
  return { data: { type: 'vars', attributes: { category: 'policy-set', ...attributes } } };
}

export function parameterUpdate(id: string, attributes: Record<string, unknown>) {
  return { data: { type: 'vars', id, attributes } };
}

export async function createParameter(ctx: TestContext, token: string, policySetId: string, attributes: Record<string, unknown>) {
  const res = await ctx.post(`/api/v2/policy-sets/${policySetId}/parameters`, token, parameterBody(attributes));
  if (res.status !== 201) throw new Error(`parameter create failed: ${res.status} ${res.raw}`);
  return res.body.data;
}

/** A new project of `org`, created by its owner through the projects API; returns its id. */
export async function newProject(ctx: TestContext, org: Org): Promise<string> {
  return (await createProject(ctx, org)).id;
}

/** A new workspace of `org` (in its default project unless told), created through the workspaces API. */
export async function newWorkspace(ctx: TestContext, org: Org, projectId?: string): Promise<string> {
  return (await createWorkspace(ctx, org, projectId)).id;
}
