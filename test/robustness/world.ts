// A small but complete world for the robustness suite: two organizations with one of every
// resource, so every path parameter has a real id of "our" organization and of a foreign one.
import type { TestContext } from '../helpers/harness.ts';
import { advancePlan, uploadConfiguration } from '../helpers/runner.ts';

export interface World {
  ownerToken: string;
  /** A member of our organization on a team with no organization access. */
  memberToken: string;
  foreignToken: string;
  /** Our pool's agent token, and the agent registered with it. */
  agentToken: string;
  agentId: string;
  /** The foreign organization's agent. */
  foreignAgentId: string;
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
  const token = await must(
    ctx.post(`/api/v2/users/${org.owner.id}/authentication-tokens`, t, { data: { type: 'authentication-tokens', attributes: {} } }),
    'token',
  );
  const project = await must(
    ctx.post(`/api/v2/organizations/${org.name}/projects`, t, { data: { type: 'projects', attributes: { name: 'fuzz-project' } } }),
    'project',
  );
  const workspace = await must(
    ctx.post(`/api/v2/organizations/${org.name}/workspaces`, t, {
      data: { type: 'workspaces', attributes: { name: `ws-${org.name}` }, relationships: { project: { data: { type: 'projects', id: project.id } } } },
    }),
    'workspace',
  );
  const grant = await must(
    ctx.post('/api/v2/team-projects', t, {
      data: {
        type: 'team-projects',
        attributes: { access: 'read' },
        relationships: { team: { data: { type: 'teams', id: member.teamId } }, project: { data: { type: 'projects', id: project.id } } },
      },
    }),
    'team access',
  );
  const workspaceGrant = await must(
    ctx.post('/api/v2/team-workspaces', t, {
      data: {
        type: 'team-workspaces',
        attributes: { access: 'read' },
        relationships: { team: { data: { type: 'teams', id: member.teamId } }, workspace: { data: { type: 'workspaces', id: workspace.id } } },
      },
    }),
    'team workspace access',
  );
  const policySet = await must(
    ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, t, { data: { type: 'policy-sets', attributes: { name: 'fuzz-set' } } }),
    'policy set',
  );
  const parameter = await must(
    ctx.post(`/api/v2/policy-sets/${policySet.id}/parameters`, t, {
      data: { type: 'vars', attributes: { key: 'secret', value: 'fuzz-sensitive-value', category: 'policy-set', sensitive: true } },
    }),
    'parameter',
  );
  const policy = await must(
    ctx.post(`/api/v2/organizations/${org.name}/policies`, t, {
      data: { type: 'policies', attributes: { name: 'fuzz-policy', 'enforcement-level': 'advisory' } },
    }),
    'policy',
  );
  const versioned = await must(
    ctx.post(`/api/v2/organizations/${org.name}/policy-sets`, t, { data: { type: 'policy-sets', attributes: { name: 'fuzz-versioned' } } }),
    'versioned policy set',
  );
  const version = await must(
    ctx.request('POST', `/api/v2/policy-sets/${versioned.id}/versions`, { token: t, contentType: 'application/vnd.api+json' }),
    'policy set version',
  );
  const pool = await must(
    ctx.post(`/api/v2/organizations/${org.name}/agent-pools`, t, { data: { type: 'agent-pools', attributes: { name: 'fuzz-pool' } } }),
    'agent pool',
  );
  const agentToken = await must(
    ctx.post(`/api/v2/agent-pools/${pool.id}/authentication-tokens`, t, { data: { type: 'authentication-tokens', attributes: { description: 'fuzz' } } }),
    'agent token',
  );
  const agentSecret = agentToken.attributes.token as string;
  const invitation = await must(
    ctx.post(`/api/v2/organizations/${org.name}/organization-memberships`, t, {
      data: { type: 'organization-memberships', attributes: { email: `invitee@${org.name}.test` } },
    }),
    'invitation',
  );
  const variable = await must(
    ctx.post(`/api/v2/workspaces/${workspace.id}/vars`, t, {
      data: { type: 'vars', attributes: { key: 'fuzz_var', value: 'fuzz-variable-value', category: 'terraform', sensitive: true } },
    }),
    'workspace variable',
  );
  const varset = await must(
    ctx.post(`/api/v2/organizations/${org.name}/varsets`, t, { data: { type: 'varsets', attributes: { name: 'fuzz-varset' } } }),
    'variable set',
  );
  const setVariable = await must(
    ctx.post(`/api/v2/varsets/${varset.id}/relationships/vars`, t, {
      data: { type: 'vars', attributes: { key: 'fuzz_set_var', value: 'fuzz-set-value', category: 'env' } },
    }),
    'variable set variable',
  );
  const source = await must(
    ctx.post(`/api/v2/organizations/${org.name}/workspaces`, t, { data: { type: 'workspaces', attributes: { name: 'fuzz-trigger-source' } } }),
    'run trigger source workspace',
  );
  const runTrigger = await must(
    ctx.post(`/api/v2/workspaces/${workspace.id}/run-triggers`, t, {
      data: { relationships: { sourceable: { data: { type: 'workspaces', id: source.id } } } },
    }),
    'run trigger',
  );
  const notification = await must(
    ctx.post(`/api/v2/workspaces/${workspace.id}/notification-configurations`, t, {
      data: {
        type: 'notification-configurations',
        attributes: { name: 'fuzz-notification', 'destination-type': 'generic', url: 'http://127.0.0.1:9/fuzz', token: 'fuzz-notification-token' },
      },
    }),
    'notification configuration',
  );
  // A finished plan (in a workspace of its own, whose lock its run holds) and an export of it.
  const exported = await must(
    ctx.post(`/api/v2/organizations/${org.name}/workspaces`, t, { data: { type: 'workspaces', attributes: { name: 'fuzz-exported' } } }),
    'plan export workspace',
  );
  await uploadConfiguration(ctx, t, exported.id, { 'main.tf': 'resource "terraform_data" "a" {}\n' });
  const run = await must(
    ctx.post('/api/v2/runs', t, { data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: exported.id } } } } }),
    'run',
  );
  const { planId } = await advancePlan(ctx, run.id, 'planned');
  const planExport = await must(
    ctx.post('/api/v2/plan-exports', t, {
      data: { type: 'plan-exports', attributes: { 'data-type': 'sentinel-mock-bundle-v0' }, relationships: { plan: { data: { type: 'plans', id: planId } } } },
    }),
    'plan export',
  );
  const sshKey = await must(
    ctx.post(`/api/v2/organizations/${org.name}/ssh-keys`, t, {
      data: {
        type: 'ssh-keys',
        attributes: { name: 'fuzz-key', value: '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAfuzzKeyAAAA\n-----END OPENSSH PRIVATE KEY-----\n' },
      },
    }),
    'SSH key',
  );
  const registered = await ctx.request('POST', '/api/agent/register', { token: agentSecret, body: { name: 'fuzz-agent' }, contentType: 'application/json' });
  if (registered.status >= 300) throw new Error(`agent register: ${registered.status} ${registered.raw}`);
  return {
    org,
    member,
    agentSecret,
    agentId: registered.body.id as string,
    ids: {
      organization_name: org.name,
      team_id: member.teamId,
      user_id: org.owner.id,
      token_id: token.id,
      project_id: project.id,
      workspace_id: workspace.id,
      workspace_name: workspace.attributes.name,
      team_project_id: grant.id,
      team_workspace_id: workspaceGrant.id,
      policy_set_id: policySet.id,
      parameter_id: parameter.id,
      policy_id: policy.id,
      policy_set_version_id: version.id,
      agent_pool_id: pool.id,
      agent_id: registered.body.id,
      membership_id: invitation.id,
      variable_id: variable.id,
      varset_id: varset.id,
      set_variable_id: setVariable.id,
      run_trigger_id: runTrigger.id,
      notification_configuration_id: notification.id,
      plan_export_id: planExport.id,
      ssh_key_id: sshKey.id,
    } as Record<string, string>,
  };
}

export async function buildWorld(ctx: TestContext): Promise<World> {
  const own = await organizationWorld(ctx);
  const foreign = await organizationWorld(ctx);
  const params: World['params'] = {};
  for (const [name, id] of Object.entries(own.ids)) params[name] = { own: id, foreign: foreign.ids[name]! };
  return {
    ownerToken: own.org.owner.token,
    memberToken: own.member.token,
    foreignToken: foreign.org.owner.token,
    agentToken: own.agentSecret,
    agentId: own.agentId,
    foreignAgentId: foreign.agentId,
    params,
  };
}
