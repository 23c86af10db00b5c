// Lists in creation order by a key the database hands out (db/creation-order.ts), instead of
// `created_at` with a random id breaking ties: parameters made in the same millisecond came back
// in random order. Each list's index becomes (parent, seq); the (parent, created_at) indexes it
// replaces served nothing else but the foreign keys, which the new ones serve as well.
import type { Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';

/** Table → the index its lists use: [name, columns], and the index it replaces (if any). */
const LISTED: Record<string, { index: [string, string[]]; replaces?: string }[]> = {
  organizations: [{ index: ['organizations_seq', ['seq']], replaces: 'organizations_created' }],
  teams: [{ index: ['teams_org_seq', ['organization_id', 'seq']] }],
  projects: [{ index: ['projects_org_seq', ['organization_id', 'seq']], replaces: 'projects_org_created' }],
  team_projects: [{ index: ['team_projects_project_seq', ['project_id', 'seq']], replaces: 'team_projects_project' }],
  team_workspaces: [{ index: ['team_workspaces_workspace_seq', ['workspace_id', 'seq']], replaces: 'team_workspaces_workspace' }],
  policy_set_parameters: [{ index: ['policy_set_parameters_set_seq', ['policy_set_id', 'seq']], replaces: 'policy_set_parameters_set_created' }],
  agent_pools: [{ index: ['agent_pools_org_seq', ['organization_id', 'seq']], replaces: 'agent_pools_org_created' }],
  agents: [{ index: ['agents_pool_seq', ['agent_pool_id', 'seq']], replaces: 'agents_pool_created' }],
  auth_tokens: [
    { index: ['auth_tokens_user_seq', ['user_id', 'seq']], replaces: 'auth_tokens_user' },
    { index: ['auth_tokens_agent_pool_seq', ['agent_pool_id', 'seq']], replaces: 'auth_tokens_agent_pool' },
  ],
  state_versions: [{ index: ['state_versions_workspace_seq', ['workspace_id', 'seq']], replaces: 'state_versions_workspace_created' }],
  configuration_versions: [{ index: ['configuration_versions_workspace_seq', ['workspace_id', 'seq']], replaces: 'configuration_versions_workspace' }],
  runs: [{ index: ['runs_workspace_seq', ['workspace_id', 'seq']], replaces: 'runs_workspace' }],
};

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, indexes] of Object.entries(LISTED)) {
    await addCreationOrder(db, table);
    for (const { index, replaces } of indexes) {
      await db.schema.createIndex(index[0]).on(table).columns(index[1]).execute();
      if (replaces) await db.schema.dropIndex(replaces).execute();
    }
  }
}
