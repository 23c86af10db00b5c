// A 404 for something that exists in another organization must cost what a 404 for something
// missing costs, or its timing tells the two apart where the answer does not. Counted in
// queries: the same statements, so the same work, whatever the machine's speed.
import { untilCaching } from './helpers/caches.ts';
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { suite, type Response } from './helpers/harness.ts';
import { assertError } from './helpers/assert.ts';
import { createPool } from './helpers/agents.ts';
import { createPolicySet } from './helpers/policy-sets.ts';
import { createProject, createWorkspace } from './helpers/projects.ts';
import { newId } from '../src/ids.ts';

interface Pair {
  what: string;
  method: 'GET' | 'PATCH' | 'DELETE';
  existing: string;
  missing: string;
  body?: unknown;
}

suite('404 for another organization costs what a missing one does', (ctx) => {
  const pairs: Pair[] = [];
  const callers: Array<[string, string]> = [];

  before(async () => {
    const victim = await ctx.organization();
    const owner = victim.owner.token;
    const project = await createProject(ctx, victim);
    const workspace = await createWorkspace(ctx, victim, project.id);
    const team = await ctx.post(`/api/v2/organizations/${victim.name}/teams`, owner, {
      data: { type: 'teams', attributes: { name: 'visible', visibility: 'organization' } },
    });
    const policySet = await createPolicySet(ctx, victim);
    const pool = await createPool(ctx, victim);
    const orgToken = await ctx.post(`/api/v2/organizations/${victim.name}/authentication-token`, owner, { data: { type: '' } });
    const missingOrg = `${victim.name}-gone`;
    const varset = await ctx.post(`/api/v2/organizations/${victim.name}/varsets`, owner, {
      data: { type: 'varsets', attributes: { name: 'secrets', global: false } },
    });
    const variable = await ctx.post(`/api/v2/workspaces/${workspace.id}/vars`, owner, { data: { type: 'vars', attributes: { key: 'k', category: 'env' } } });
    const patch = { data: { type: 'organizations', attributes: { email: 'x@example.test' } } };
    pairs.push(
      { what: 'an organization', method: 'GET', existing: `/api/v2/organizations/${victim.name}`, missing: `/api/v2/organizations/${missingOrg}` },
      {
        what: 'an organization, changed',
        method: 'PATCH',
        existing: `/api/v2/organizations/${victim.name}`,
        missing: `/api/v2/organizations/${missingOrg}`,
        body: patch,
      },
      {
        what: "an organization's projects",
        method: 'GET',
        existing: `/api/v2/organizations/${victim.name}/projects`,
        missing: `/api/v2/organizations/${missingOrg}/projects`,
      },
      {
        what: 'a workspace by name',
        method: 'GET',
        existing: `/api/v2/organizations/${victim.name}/workspaces/${workspace.attributes.name}`,
        missing: `/api/v2/organizations/${missingOrg}/workspaces/${workspace.attributes.name}`,
      },
      {
        what: "an organization's token",
        method: 'GET',
        existing: `/api/v2/organizations/${victim.name}/authentication-token`,
        missing: `/api/v2/organizations/${missingOrg}/authentication-token`,
      },
      { what: 'a project', method: 'GET', existing: `/api/v2/projects/${project.id}`, missing: `/api/v2/projects/${newId('prj')}` },
      { what: 'a project, deleted', method: 'DELETE', existing: `/api/v2/projects/${project.id}`, missing: `/api/v2/projects/${newId('prj')}` },
      { what: 'a workspace', method: 'GET', existing: `/api/v2/workspaces/${workspace.id}`, missing: `/api/v2/workspaces/${newId('ws')}` },
      { what: 'a team', method: 'GET', existing: `/api/v2/teams/${team.body.data.id}`, missing: `/api/v2/teams/${newId('team')}` },
      { what: 'a policy set', method: 'GET', existing: `/api/v2/policy-sets/${policySet.id}`, missing: `/api/v2/policy-sets/${newId('polset')}` },
      { what: 'an agent pool', method: 'GET', existing: `/api/v2/agent-pools/${pool.id}`, missing: `/api/v2/agent-pools/${newId('apool')}` },
      {
        what: 'a token',
        method: 'GET',
        existing: `/api/v2/authentication-tokens/${orgToken.body.data.id}`,
        missing: `/api/v2/authentication-tokens/${newId('at')}`,
      },
      { what: 'a variable set', method: 'GET', existing: `/api/v2/varsets/${varset.body.data.id}`, missing: `/api/v2/varsets/${newId('varset')}` },
      {
        what: "a variable set's variables",
        method: 'GET',
        existing: `/api/v2/varsets/${varset.body.data.id}/relationships/vars`,
        missing: `/api/v2/varsets/${newId('varset')}/relationships/vars`,
      },
      {
        what: "a workspace's variables",
        method: 'GET',
        existing: `/api/v2/workspaces/${workspace.id}/vars`,
        missing: `/api/v2/workspaces/${newId('ws')}/vars`,
      },
      { what: 'a variable by id alone', method: 'DELETE', existing: `/api/v2/vars/${variable.body.data.id}`, missing: `/api/v2/vars/${newId('var')}` },
    );
    const other = await ctx.organization();
    const otherToken = await ctx.post(`/api/v2/organizations/${other.name}/authentication-token`, other.owner.token, { data: { type: '' } });
    const member = await ctx.member(other, { 'manage-projects': true });
    callers.push(
      ['an owner of another organization', other.owner.token],
      ['a member of another organization', member.token],
      ["another organization's token", otherToken.body.data.attributes.token],
    );
    // First uses write last-used-at; let those happen before anything is counted.
    for (const [, token] of callers) await ctx.get('/api/v2/account/details', token);
    await untilCaching(ctx.database);
  });

  const send = (pair: Pair, url: string, token: string) => ctx.request(pair.method, url, { token, body: pair.body });

  it('answers both with the same 404 after the same number of queries, for every kind of caller', async () => {
    for (const [who, token] of callers) {
      for (const pair of pairs) {
        await send(pair, pair.existing, token);
        await send(pair, pair.missing, token);
        const existing = await ctx.countQueries(() => send(pair, pair.existing, token));
        const missing = await ctx.countQueries(() => send(pair, pair.missing, token));
        const label = `${pair.method} ${pair.what} as ${who}`;
        for (const r of [existing.result, missing.result] as Response[]) assertError(r, 404);
        assert.equal(existing.result.raw, missing.result.raw, `${label}: the same body`);
        assert.equal(
          existing.queries,
          missing.queries,
          `${label}: ${existing.queries} queries for another organization's, ${missing.queries} for a missing one`,
        );
      }
    }
  });
});
