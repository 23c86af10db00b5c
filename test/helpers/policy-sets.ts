// Set-up helpers for the policy set and parameter suites.
import { newId } from '../../src/jsonapi/ids.ts';
import { now } from '../../src/jsonapi/time.ts';
import { unique, type TestContext } from './harness.ts';

export interface Org {
  name: string;
  owner: { id: string; username: string; token: string };
  defaultProjectId: string;
}

export function policySetBody(name: string, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>) {
  return { data: { type: 'policy-sets', attributes: { name, ...attributes }, ...(relationships ? { relationships } : {}) } };
}

export const projectRefs = (...ids: string[]) => ({ data: ids.map((id) => ({ id, type: 'projects' })) });

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

/**
 * A project row straight into the database: the projects API is another issue's work, and
 * these suites only need projects to exist.
 */
export async function insertProject(ctx: TestContext, org: Org): Promise<string> {
  const { id: organizationId } = await ctx.database.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', org.name)
    .executeTakeFirstOrThrow();
  const id = newId('prj');
  await ctx.database.db
    .insertInto('projects')
    .values({
      id,
      organization_id: organizationId,
      name: unique('project'),
      description: null,
      auto_destroy_activity_duration: null,
      is_default: false,
      created_at: now(),
    })
    .execute();
  return id;
}
