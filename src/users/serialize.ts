import { createHash } from 'node:crypto';
import type { UserView } from './service.ts';

/**
 * Gravatar's picture for the address (by its SHA-256, which Gravatar accepts), falling back to
 * its silhouette. Only the account's owner, who sees the address, gets it: a hash of an address
 * is easily reversed, so everyone else gets the silhouette alone. Stable between reads.
 */
function avatarUrl(email: string, showsEmail: boolean): string {
  if (!showsEmail) return 'https://www.gravatar.com/avatar/?s=100&d=mm';
  const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?s=100&d=mm`;
}

/** A `users` resource. */
export function userResource({ user, permissions, showsEmail, authenticated }: UserView) {
  const authenticatedAs = authenticated
    ? authenticated.kind === 'user'
      ? { id: authenticated.user.id, type: 'users' }
      : { id: authenticated.organizationName, type: 'organizations' }
    : undefined;
  return {
    id: user.id,
    type: 'users',
    attributes: {
      username: user.username,
      ...(showsEmail ? { email: user.email, 'unconfirmed-email': null } : {}),
      'is-service-account': user.isServiceAccount,
      'is-site-admin': user.isSiteAdmin,
      'auth-method': 'hcp_username_password',
      'avatar-url': avatarUrl(user.email, showsEmail),
      'v2-only': true,
      'is-sso-login': false,
      'two-factor': { enabled: false, verified: false },
      permissions,
    },
    relationships: {
      'authentication-tokens': { links: { related: `/api/v2/users/${user.id}/authentication-tokens` } },
      ...(authenticatedAs ? { 'authenticated-resource': { data: authenticatedAs } } : {}),
    },
    links: { self: `/api/v2/users/${user.id}` },
  };
}
