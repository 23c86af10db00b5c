// A small but complete world for the robustness suite: two organizations with one of every
// resource, so every path parameter has a real id of "our" organization and of a foreign one.
import type { TestContext } from '../helpers/harness.ts';

export interface World {
  ownerToken: string;
  /** A member of our organization on a team with no organization access. */
  memberToken: string;
  foreignToken: string;
  /** Path parameter name → a real id in our organization and one in the foreign organization. */
  params: Record<string, { own: string; foreign: string }>;
}

async function must(res: Promise<{ status: number; body: any; raw: string }>, what: string) {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.raw}`);
  return r.body?.data;
}

async function organizationWorld(ctx: TestContext) {
  const org = await ctx.organization();
  const t = org.owner.token;
  const member = await ctx.member(org);
  const token = await must(ctx.post(`/api/v2/users/${org.owner.id}/authentication-tokens`, t, { data: { type: 'authentication-tokens', attributes: {} } }), 'token');
  return {
    org,
    member,
    ids: {
      organization_name: org.name,
      team_id: member.teamId,
      user_id: org.owner.id,
      token_id: token.id,
    } as Record<string, string>,
  };
}

export async function buildWorld(ctx: TestContext): Promise<World> {
  const own = await organizationWorld(ctx);
  const foreign = await organizationWorld(ctx);
  const params: World['params'] = {};
  for (const [name, id] of Object.entries(own.ids)) params[name] = { own: id, foreign: foreign.ids[name]! };
  return { ownerToken: own.org.owner.token, memberToken: own.member.token, foreignToken: foreign.org.owner.token, params };
}
