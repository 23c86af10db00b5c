// A state version keeps how many resources it manages beside its resource summary: every view
// of a workspace shows `resource-count`, and a page of workspaces read each current version's
// whole summary (JSON, one entry per resource address) only to add up its counts. Versions of
// older releases are counted here, in SQL, from the summary they already hold.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../sql.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('state_versions').addColumn('resource_count', 'integer').execute();
  if (isPostgres(db)) {
    await sql`update state_versions set resource_count = (
        select coalesce(sum((e ->> 'count')::integer), 0) from json_array_elements(resources::json) as e
      ) where resources is not null`.execute(db);
  } else {
    await sql`update state_versions set resource_count = (
        select coalesce(sum(json_extract(e.value, '$.count')), 0) from json_each(state_versions.resources) as e
      ) where resources is not null`.execute(db);
  }
}
