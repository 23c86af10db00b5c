// Multiple team tokens (TFE's `POST /teams/:team_id/authentication-tokens`). A team keeps at most
// one token without a description, the "legacy" token its `/authentication-token` routes create,
// replace, show and delete; beside it, any number of tokens with a description, unique within the
// team. Both rules live in partial unique indexes, so two simultaneous creates cannot break them.
// The organization's team tokens are listed by `organization_id` (kind `team`), which the index
// `auth_tokens_org (organization_id, kind)` of 0001 serves.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('auth_tokens_one_team_token').execute();
  await db.schema
    .createIndex('auth_tokens_legacy_team_token')
    .on('auth_tokens')
    .column('team_id')
    .unique()
    .where(sql<boolean>`kind = 'team' and description is null`)
    .execute();
  await db.schema
    .createIndex('auth_tokens_team_token_description')
    .on('auth_tokens')
    .columns(['team_id', 'description'])
    .unique()
    .where(sql<boolean>`kind = 'team' and description is not null`)
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
