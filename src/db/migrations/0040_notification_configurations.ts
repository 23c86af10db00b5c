// Notification configurations, as TFE has them: a workspace (or, later, a team) names a
// destination (a generic webhook, Slack, Microsoft Teams, or email) and the run events it wants.
// The token that signs generic webhooks is sealed like a sensitive variable (the configuration id
// as associated data) and never read back by the API. Three more tables serve delivery:
// - notification_configuration_users: the organization members an email configuration names;
// - notification_deliveries: the outbox. A run's status change inserts its rows in the same
//   transaction, so a notification is sent exactly for the changes that committed; a deliverer on
//   any instance claims a row by moving `next_attempt_at` forward with a conditional UPDATE;
// - notification_delivery_responses: the last few outcomes of each configuration, as TFE shows
//   them in `delivery-responses`.
import { sql, type Kysely } from 'kysely';
import { addCreationOrder } from '../creation-order.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_configurations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('cascade'))
    .addColumn('team_id', 'text', (c) => c.references('teams.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('destination_type', 'text', (c) => c.notNull().check(sql`destination_type in ('generic', 'email', 'slack', 'microsoft-teams')`))
    .addColumn('enabled', 'boolean', (c) => c.notNull())
    .addColumn('url', 'text')
    // Ciphertext (crypto/keyring.ts); null when no token is set.
    .addColumn('encrypted_token', 'text')
    // JSON arrays of strings.
    .addColumn('triggers', 'text', (c) => c.notNull())
    .addColumn('email_addresses', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addCheckConstraint('notification_configurations_one_subscribable', sql`(workspace_id is null) <> (team_id is null)`)
    .execute();
  await addCreationOrder(db, 'notification_configurations');
  await db.schema.createIndex('notification_configurations_workspace_seq').on('notification_configurations').columns(['workspace_id', 'seq']).execute();
  await db.schema.createIndex('notification_configurations_team_seq').on('notification_configurations').columns(['team_id', 'seq']).execute();

  await db.schema
    .createTable('notification_configuration_users')
    .addColumn('configuration_id', 'text', (c) => c.notNull().references('notification_configurations.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('notification_configuration_users_pk', ['configuration_id', 'user_id'])
    .execute();
  await db.schema.createIndex('notification_configuration_users_user').on('notification_configuration_users').column('user_id').execute();

  await db.schema
    .createTable('notification_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // No foreign key, on purpose: the rows are inserted inside a run's status change, which must
    // not fail because a configuration was deleted in the same instant. A row whose configuration
    // is gone is dropped by the deliverer that claims it.
    .addColumn('configuration_id', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    // What the payload says about the run, as it was when its status changed (JSON).
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // When the row may next be claimed: due now when inserted, pushed past the sending time by a
    // claim (a lease: a deliverer that died mid-send leaves the row to be claimed again later).
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_deliveries_due').on('notification_deliveries').columns(['next_attempt_at', 'id']).execute();
  await db.schema.createIndex('notification_deliveries_configuration').on('notification_deliveries').column('configuration_id').execute();

  await db.schema
    .createTable('notification_delivery_responses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('configuration_id', 'text', (c) => c.notNull().references('notification_configurations.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    // JSON object of header name → list of values.
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('successful', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await addCreationOrder(db, 'notification_delivery_responses');
  await db.schema
    .createIndex('notification_delivery_responses_configuration_seq')
    .on('notification_delivery_responses')
    .columns(['configuration_id', 'seq'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
