import type { UserView } from './service.ts';

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
      'avatar-url': null,
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
