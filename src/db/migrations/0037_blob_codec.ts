// A blob part may be compressed before it is sealed: `codec` names how ('zstd'), null for a
// part kept as it was (every part of older releases). Logs are text that packs several times
// over, and a log read on PostgreSQL moves every stored byte twice over the wire (bytea as hex).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('blobs')
    .addColumn('codec', 'text', (c) => c.check(sql`codec in ('zstd')`))
    .execute();
}
