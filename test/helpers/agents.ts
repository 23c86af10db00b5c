// Set-up shared by the agent pool, agent token and agent tests.
import assert from 'node:assert/strict';
import type { Response, TestContext } from './harness.ts';
import { unique } from './harness.ts';

export const TOKEN_SHAPE = /^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/;
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export const poolBody = (name: string, attributes: Record<string, unknown> = {}) => ({
  data: { type: 'agent-pools', attributes: { name, ...attributes } },
});

export const tokenBody = (description: unknown, type = 'authentication-tokens') => ({
  data: { type, attributes: { description } },
});

/** A new pool in `org`, created by `token` (the owner's unless given). */
export async function createPool(ctx: TestContext, org: { name: string; owner: { token: string } }, token = org.owner.token) {
  const res = await ctx.post(`/api/v2/organizations/${org.name}/agent-pools`, token, poolBody(unique('pool')));
  if (res.status !== 201) throw new Error(`pool create failed: ${res.status} ${res.raw}`);
  return { id: res.body.data.id as string, name: res.body.data.attributes.name as string };
}

/** A new agent token of `poolId`: its id and its secret. */
export async function createAgentToken(ctx: TestContext, poolId: string, token: string, description = 'runner') {
  const res = await ctx.post(`/api/v2/agent-pools/${poolId}/authentication-tokens`, token, tokenBody(description));
  if (res.status !== 201) throw new Error(`agent token create failed: ${res.status} ${res.raw}`);
  return { id: res.body.data.id as string, secret: res.body.data.attributes.token as string };
}

/** A call to the plain-JSON agent endpoints (`/api/agent/...`). */
export function agentCall(ctx: TestContext, path: 'register' | 'status', token: string | null, body?: unknown): Promise<Response> {
  return ctx.request('POST', `/api/agent/${path}`, { token, body, contentType: body === undefined ? null : 'application/json' });
}

/** A registered agent of the token's pool. */
export async function registerAgent(ctx: TestContext, agentToken: string, name: string | null = unique('agent')) {
  const res = await agentCall(ctx, 'register', agentToken, name === null ? undefined : { name });
  if (res.status !== 201) throw new Error(`agent register failed: ${res.status} ${res.raw}`);
  return res.body.id as string;
}

/** An organization, one pool of it, and a token of that pool. */
export async function poolWithToken(ctx: TestContext) {
  const org = await ctx.organization();
  const pool = await createPool(ctx, org);
  const token = await createAgentToken(ctx, pool.id, org.owner.token);
  return { org, pool, token };
}

/** Makes an agent look silent since `msAgo`, as if its heartbeats had stopped. */
export async function silenceAgent(ctx: TestContext, agentId: string, msAgo: number) {
  const at = new Date(Date.now() - msAgo).toISOString();
  await ctx.database.db.updateTable('agents').set({ last_ping_at: at }).where('id', '=', agentId).execute();
}

/** An error from the agent endpoints: the same `errors` array, but as plain application/json. */
export function assertAgentError(res: Response, status: number, pointer?: string) {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.raw}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.ok(Array.isArray(res.body?.errors) && res.body.errors.length > 0, `no errors array: ${res.raw}`);
  for (const e of res.body.errors) assert.equal(e.status, String(status));
  if (pointer !== undefined) {
    const pointers = res.body.errors.map((e: { source?: { pointer?: string } }) => e.source?.pointer);
    assert.ok(pointers.includes(pointer), `expected pointer ${pointer}, got ${JSON.stringify(pointers)}`);
  }
  return res.body.errors[0] as { status: string; title: string; detail?: string };
}

/**
 * Gives rows distinct, increasing creation times a second apart, in the order given: rows made
 * within the same millisecond would otherwise be ordered by their random ids.
 */
export async function spreadCreatedAt(ctx: TestContext, table: 'agent_pools' | 'auth_tokens' | 'agents', ids: readonly string[]) {
  const start = Date.now() - ids.length * 1000;
  for (const [i, id] of ids.entries()) {
    const at = new Date(start + i * 1000).toISOString();
    await ctx.database.db.updateTable(table).set({ created_at: at }).where('id', '=', id).execute();
  }
}
