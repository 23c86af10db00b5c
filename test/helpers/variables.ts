// Set-up helpers for the variables and variable sets suites.
import { unique, type TestContext } from './harness.ts';
import type { Org } from './projects.ts';

export const varBody = (attributes: Record<string, unknown>) => ({ data: { type: 'vars', attributes: { category: 'terraform', ...attributes } } });
export const varUpdate = (attributes: Record<string, unknown>) => ({ data: { type: 'vars', attributes } });

export async function createVariable(ctx: TestContext, token: string, workspaceId: string, attributes: Record<string, unknown>) {
  const res = await ctx.post(`/api/v2/workspaces/${workspaceId}/vars`, token, varBody(attributes));
  if (res.status !== 201) throw new Error(`variable create failed: ${res.status} ${res.raw}`);
  return res.body.data;
}

export async function createSet(ctx: TestContext, org: Org, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) {
  const body = { data: { type: 'varsets', attributes: { name: unique('varset'), global: false, ...attributes }, ...(relationships ? { relationships } : {}) } };
  const res = await ctx.post(`/api/v2/organizations/${org.name}/varsets`, org.owner.token, body);
  if (res.status !== 201) throw new Error(`variable set create failed: ${res.status} ${res.raw}`);
  return res.body.data;
}

export async function createSetVariable(ctx: TestContext, token: string, setId: string, attributes: Record<string, unknown>) {
  const res = await ctx.post(`/api/v2/varsets/${setId}/relationships/vars`, token, varBody(attributes));
  if (res.status !== 201) throw new Error(`set variable create failed: ${res.status} ${res.raw}`);
  return res.body.data;
}
