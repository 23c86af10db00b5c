// Signing in from outside: `terraform login` (OAuth authorization codes that Terraform trades
// for a user token) and single sign-on with OpenID Connect (the browser's pending sign-ins, and
// which provider account is which Hangar user).
//
// Every secret here is stored as its SHA-256 digest, as tokens and sessions are: a copy of the
// database trades no code and finishes no sign-in.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // An authorization code: single use, short-lived, bound to the PKCE challenge and the
  // redirect URI it was issued for. `used_at` and `token_id` stay after the trade, so that a code
  // presented a second time (a stolen copy) also ends the token the first trade issued.
  await db.schema
    .createTable('login_codes')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('token_id', 'text', (c) => c.references('auth_tokens.id').onDelete('set null'))
    .execute();
  // Expired codes are swept by age.
  await db.schema.createIndex('login_codes_expires').on('login_codes').column('expires_at').execute();
  await db.schema.createIndex('login_codes_user').on('login_codes').column('user_id').execute();

  // A browser's sign-in under way at an OpenID provider: what the callback must find again
  // (state, nonce, PKCE verifier, the redirect URI it named) and where to go afterwards. Keyed by the digest of a random
  // cookie, so that only the browser that began it can finish it.
  await db.schema
    .createTable('oidc_sign_ins')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oidc_sign_ins_expires').on('oidc_sign_ins').column('expires_at').execute();

  // The provider account (issuer and subject, which never change) a user signed in with. The
  // configured claim matches an account to a user the first time only; afterwards the subject
  // decides, so a changed address at the provider cannot move anyone into another user.
  await db.schema
    .createTable('user_identities')
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['issuer', 'subject'])
    .execute();
  await db.schema.createIndex('user_identities_user').on('user_identities').column('user_id').execute();
}

export async function down(): Promise<void> {
  throw new Error('Hangar migrations are forward-only');
}
