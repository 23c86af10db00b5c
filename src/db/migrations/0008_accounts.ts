// Organization settings as TFE serves them, the order of the organization list, and the second
// organization token slot (the audit-trail token).
import { sql, type Kysely } from 'kysely';

/** The longest session either setting allows, in minutes: 14 days, also TFE's default. */
const SESSION_MINUTES_MAX = 20160;

export async function up(db: Kysely<any>): Promise<void> {
  // Each setting is one column holding TFE's default for a new organization; the request schemas
  // keep values in range, and the checks keep them there whatever writes them.
  const minutes = (column: string) => sql`${sql.ref(column)} between 1 and ${sql.lit(SESSION_MINUTES_MAX)}`;
  const settings: Array<[string, 'boolean' | 'integer' | 'text', unknown, ReturnType<typeof sql>?]> = [
    ['session_timeout', 'integer', SESSION_MINUTES_MAX, minutes('session_timeout')],
    ['session_remember', 'integer', SESSION_MINUTES_MAX, minutes('session_remember')],
    ['collaborator_auth_policy', 'text', 'password', sql`collaborator_auth_policy in ('password', 'two_factor_mandatory')`],
    ['cost_estimation_enabled', 'boolean', false],
    ['send_passing_statuses_for_untriggered_speculative_plans', 'boolean', false],
    ['assessments_enforced', 'boolean', false],
    ['allow_force_delete_workspaces', 'boolean', false],
    ['aggregated_commit_status_enabled', 'boolean', false],
    ['speculative_plan_management_enabled', 'boolean', true],
  ];
  for (const [name, type, value, check] of settings) {
    await db.schema
      .alterTable('organizations')
      .addColumn(name, type, (c) => {
        const column = c.notNull().defaultTo(value);
        return check ? column.check(check) : column;
      })
      .execute();
  }
  await db.schema.alterTable('organizations').addColumn('owners_team_saml_role_id', 'text').execute();

  // The organization list's order: newest first, ties broken by id.
  await db.schema.createIndex('organizations_created').on('organizations').columns(['created_at', 'id']).execute();

  // Beside the organization token, at most one audit-trail token per organization.
  await db.schema
    .createIndex('auth_tokens_one_audit_trail_token')
    .on('auth_tokens')
    .column('organization_id')
    .unique()
    .where(sql.ref('kind'), '=', 'audit-trail')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
