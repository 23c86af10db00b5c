// The sections of the navigation. An organization's pages show ORGANIZATION_SECTIONS under the
// site bar; a page names its section (`section: 'projects'`) to be marked as the current one.
// Adding a section is one line here and a page file under pages/.
import { path } from './html.ts';

export interface Section {
  id: string;
  label: string;
  href: (org: string) => string;
}

export const ORGANIZATION_SECTIONS: Section[] = [
  { id: 'projects', label: 'Projects', href: (org) => path`/app/${org}/projects` },
  { id: 'workspaces', label: 'Workspaces', href: (org) => path`/app/${org}/workspaces` },
  { id: 'teams', label: 'Teams', href: (org) => path`/app/${org}/settings/teams` },
  { id: 'members', label: 'Members', href: (org) => path`/app/${org}/settings/members` },
  { id: 'policy-sets', label: 'Policy sets', href: (org) => path`/app/${org}/settings/policy-sets` },
  { id: 'policies', label: 'Policies', href: (org) => path`/app/${org}/settings/policies` },
  { id: 'agents', label: 'Agent pools', href: (org) => path`/app/${org}/settings/agents` },
  { id: 'authentication-tokens', label: 'API token', href: (org) => path`/app/${org}/settings/authentication-tokens` },
];

/** Links in the site bar for the signed-in person; `admin` ones only for site administrators. */
export const ACCOUNT_LINKS: Array<{ id: string; label: string; href: string; admin?: boolean }> = [
  { id: 'account', label: 'Account', href: '/app/account' },
  { id: 'invitations', label: 'Invitations', href: '/app/invitations' },
  { id: 'tokens', label: 'Tokens', href: '/app/settings/tokens' },
  { id: 'admin-users', label: 'Users', href: '/app/admin/users', admin: true },
];
