import type { Principal } from '../auth/principal.ts';
import type { User } from './store.ts';

/** A `users` resource. The email address is shown only to the user it belongs to. */
export function userResource(user: User, options: { self: boolean; principal?: Principal }) {
  const authenticated = options.principal
    ? options.principal.kind === 'user'
      ? { id: options.principal.user.id, type: 'users' }
      : { id: options.principal.organizationName, type: 'organizations' }
    : undefined;
  return {
    id: user.id,
    type: 'users',
    attributes: {
      username: user.username,
      ...(options.self ? { email: user.email, 'unconfirmed-email': null } : {}),
      'is-service-account': user.isServiceAccount,
      'is-site-admin': user.isSiteAdmin,
      'auth-method': 'hcp_username_password',
      'avatar-url': null,
      'v2-only': true,
      'is-sso-login': false,
      'two-factor': { enabled: false, verified: false },
      permissions: {
        'can-create-organizations': !user.isServiceAccount,
        'can-change-email': !user.isServiceAccount,
        'can-change-username': !user.isServiceAccount,
        'can-manage-user-tokens': !user.isServiceAccount,
      },
    },
    relationships: {
      'authentication-tokens': { links: { related: `/api/v2/users/${user.id}/authentication-tokens` } },
      ...(authenticated ? { 'authenticated-resource': { data: authenticated } } : {}),
    },
    links: { self: `/api/v2/users/${user.id}` },
  };
}
