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
];

/** Links in the site bar for the signed-in person; `admin` ones only for site administrators. */
export const ACCOUNT_LINKS: Array<{ id: string; label: string; href: string; admin?: boolean }> = [{ id: 'account', label: 'Account', href: '/app/account' }];
