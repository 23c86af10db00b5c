import type { Queryable } from '../db/index.ts';

export interface PendingSignIn {
  digest: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  returnTo: string;
  createdAt: string;
  expiresAt: string;
}

export async function insertPending(q: Queryable, p: PendingSignIn): Promise<void> {
  await q
    .insertInto('oidc_sign_ins')
    .values({
      digest: p.digest,
      state: p.state,
      nonce: p.nonce,
      code_verifier: p.codeVerifier,
      redirect_uri: p.redirectUri,
      return_to: p.returnTo,
      created_at: p.createdAt,
      expires_at: p.expiresAt,
    })
    .execute();
}

/** Takes the pending sign-in out: whoever deletes it finishes it, once. */
export async function takePending(q: Queryable, digest: string): Promise<PendingSignIn | undefined> {
  const r = await q.selectFrom('oidc_sign_ins').selectAll().where('digest', '=', digest).executeTakeFirst();
  if (!r) return undefined;
  const deleted = await q.deleteFrom('oidc_sign_ins').where('digest', '=', digest).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== 1) return undefined;
  return {
    digest: r.digest,
    state: r.state,
    nonce: r.nonce,
    codeVerifier: r.code_verifier,
    redirectUri: r.redirect_uri,
    returnTo: r.return_to,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

export async function sweepPending(q: Queryable, before: string): Promise<void> {
  await q.deleteFrom('oidc_sign_ins').where('expires_at', '<', before).execute();
}

export async function findIdentity(q: Queryable, issuer: string, subject: string): Promise<string | undefined> {
  const r = await q.selectFrom('user_identities').select('user_id').where('issuer', '=', issuer).where('subject', '=', subject).executeTakeFirst();
  return r?.user_id;
}

/** Whether the user already signs in with some account of this issuer. */
export async function hasIdentityAt(q: Queryable, userId: string, issuer: string): Promise<boolean> {
  const r = await q.selectFrom('user_identities').select('subject').where('user_id', '=', userId).where('issuer', '=', issuer).executeTakeFirst();
  return r !== undefined;
}

export async function insertIdentity(q: Queryable, i: { issuer: string; subject: string; userId: string; createdAt: string }): Promise<void> {
  await q.insertInto('user_identities').values({ issuer: i.issuer, subject: i.subject, user_id: i.userId, created_at: i.createdAt }).execute();
}
