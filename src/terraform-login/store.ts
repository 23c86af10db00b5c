import type { Queryable } from '../db/index.ts';

export interface LoginCode {
  digest: string;
  userId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  tokenId: string | null;
}

export async function insertCode(q: Queryable, c: LoginCode): Promise<void> {
  await q
    .insertInto('login_codes')
    .values({
      digest: c.digest,
      user_id: c.userId,
      client_id: c.clientId,
      redirect_uri: c.redirectUri,
      code_challenge: c.codeChallenge,
      created_at: c.createdAt,
      expires_at: c.expiresAt,
      used_at: c.usedAt,
      token_id: c.tokenId,
    })
    .execute();
}

export async function findCode(q: Queryable, digest: string): Promise<LoginCode | undefined> {
  const r = await q.selectFrom('login_codes').selectAll().where('digest', '=', digest).executeTakeFirst();
  return (
    r && {
      digest: r.digest,
      userId: r.user_id,
      clientId: r.client_id,
      redirectUri: r.redirect_uri,
      codeChallenge: r.code_challenge,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      usedAt: r.used_at,
      tokenId: r.token_id,
    }
  );
}

/** Marks the code used; false when it already was (only one of two racing trades wins). */
export async function markUsed(q: Queryable, digest: string, at: string): Promise<boolean> {
  const r = await q.updateTable('login_codes').set({ used_at: at }).where('digest', '=', digest).where('used_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function recordToken(q: Queryable, digest: string, tokenId: string): Promise<void> {
  await q.updateTable('login_codes').set({ token_id: tokenId }).where('digest', '=', digest).execute();
}

/** Codes that expired before `before` (used or not): their rows have nothing left to guard. */
export async function sweep(q: Queryable, before: string): Promise<void> {
  await q.deleteFrom('login_codes').where('expires_at', '<', before).execute();
}
