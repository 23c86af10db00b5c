import { toOne } from '../jsonapi/relationships.ts';
import type { Token } from './store.ts';

/**
 * An `authentication-tokens` resource. `secret` is passed only by the create response; every
 * other response has `token: null`, because the secret is not stored anywhere to be read back.
 */
export function tokenResource(token: Token, secret: string | null = null) {
  return {
    id: token.id,
    type: 'authentication-tokens',
    attributes: {
      'created-at': token.createdAt,
      'last-used-at': token.lastUsedAt,
      description: token.description,
      token: secret,
      'expired-at': token.expiredAt,
    },
    relationships: {
      'created-by': { data: token.createdByUserId ? { id: token.createdByUserId, type: 'users' } : null },
      // Team tokens only: the team the token acts as.
      ...(token.teamId ? { team: toOne('teams', token.teamId) } : {}),
    },
  };
}
