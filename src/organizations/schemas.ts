import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';
import {
  BooleanOrNull,
  Document,
  Flags,
  IntegerOrNull,
  ListDocument,
  Open,
  RelatedLink,
  Resource,
  StringOrNull,
  Timestamp,
  TimestampOrNull,
  ToMany,
  ToOneOrNone,
} from '../jsonapi/schemas.ts';
import { UserResource } from '../users/schemas.ts';

export const OrganizationParams = Type.Object({ organization_name: Type.String() });

export const ListOrganizationsQuery = Type.Object({
  ...PageParams,
  /** A substring of the name or the e-mail address, in any case. */
  q: Type.Optional(Type.String()),
  'q[name]': Type.Optional(Type.String()),
  'q[email]': Type.Optional(Type.String()),
});

const Name = Type.String({ minLength: 1, maxLength: 255 });
const Email = Type.String({ minLength: 3, maxLength: 255 });

/** Minutes: a positive whole number up to 14 days. */
const SessionMinutes = Type.Integer({ minimum: 1, maximum: 20160 });

/** The settings an owner may send on create and update; each is optional, each checked by type. */
const Settings = {
  'session-timeout': Type.Optional(SessionMinutes),
  'session-remember': Type.Optional(SessionMinutes),
  'collaborator-auth-policy': Type.Optional(Type.Union([Type.Literal('password'), Type.Literal('two_factor_mandatory')])),
  'cost-estimation-enabled': Type.Optional(Type.Boolean()),
  'send-passing-statuses-for-untriggered-speculative-plans': Type.Optional(Type.Boolean()),
  'assessments-enforced': Type.Optional(Type.Boolean()),
  'allow-force-delete-workspaces': Type.Optional(Type.Boolean()),
  'aggregated-commit-status-enabled': Type.Optional(Type.Boolean()),
  'speculative-plan-management-enabled': Type.Optional(Type.Boolean()),
  // null clears it.
  'owners-team-saml-role-id': Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
};

/** The settings alone, for the type of what a route maps. */
export const SettingsAttributes = Type.Object(Settings);

const PoolId = Type.String({ minLength: 1, maxLength: 64 });
/**
 * The default execution mode of the organization's workspaces, and the agent pool that `agent`
 * needs. go-tfe sends the pool as the relationship `default-agent-pool`; TFE's documentation
 * names the attribute `default-agent-pool-id`: both are accepted, null clears it.
 */
const ExecutionDefaults = {
  'default-execution-mode': Type.Optional(Type.Union([Type.Literal('remote'), Type.Literal('local'), Type.Literal('agent')])),
  'default-agent-pool-id': Type.Optional(Type.Union([PoolId, Type.Null()])),
};
const Relationships = Type.Optional(
  Type.Object({
    'default-agent-pool': Type.Optional(Type.Object({ data: Type.Union([Type.Object({ type: Type.Literal('agent-pools'), id: PoolId }), Type.Null()]) })),
  }),
);
export const ExecutionAttributes = Type.Object(ExecutionDefaults);
export const OrganizationRelationships = Type.Object({ relationships: Relationships });

export const CreateOrganizationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organizations'),
    attributes: Type.Object({ name: Name, email: Email, ...Settings, ...ExecutionDefaults }),
    relationships: Relationships,
  }),
});

export const UpdateOrganizationBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('organizations'),
    attributes: Type.Optional(Type.Object({ name: Type.Optional(Name), email: Type.Optional(Email), ...Settings, ...ExecutionDefaults })),
    relationships: Relationships,
  }),
});

// ---- responses

const OrganizationPermissions = Flags(
  [
    'can-update',
    'can-destroy',
    'can-create-team',
    'can-update-api-token',
    'can-create-project',
    'can-create-workspace',
    'can-update-agent-pools',
    'can-manage-policies',
  ],
  { description: 'what the caller may do in the organization' },
);

export const OrganizationResource = Resource('Organization', 'organizations', {
  attributes: {
    name: Type.String(),
    email: Type.String(),
    'external-id': Type.String(),
    'created-at': Timestamp,
    'default-execution-mode': Type.String({ enum: ['remote', 'local', 'agent'], description: 'what workspaces without a mode of their own use' }),
    'session-timeout': Type.Integer(),
    'session-remember': Type.Integer(),
    'collaborator-auth-policy': Type.String({ enum: ['password', 'two_factor_mandatory'] }),
    'cost-estimation-enabled': Type.Boolean(),
    'send-passing-statuses-for-untriggered-speculative-plans': Type.Boolean(),
    'assessments-enforced': Type.Boolean(),
    'allow-force-delete-workspaces': Type.Boolean(),
    'aggregated-commit-status-enabled': Type.Boolean(),
    'speculative-plan-management-enabled': BooleanOrNull(),
    'owners-team-saml-role-id': StringOrNull(),
    'saml-enabled': Type.Boolean(),
    'two-factor-conformant': Type.Boolean(),
    'is-unified': Type.Boolean(),
    'trial-expires-at': TimestampOrNull,
    permissions: OrganizationPermissions,
  },
  relationships: {
    'default-project': ToOneOrNone('projects'),
    'default-agent-pool': ToOneOrNone('agent-pools'),
    'authentication-token': RelatedLink,
    'entitlement-set': Open({ data: Open({ id: Type.String(), type: Type.String({ const: 'entitlement-sets' }) }), links: Open({ related: Type.String() }) }),
  },
  description: 'An organization; its id is its name',
});

export const OrganizationDocument = Document(OrganizationResource, 'The organization');
export const OrganizationListDocument = ListDocument(
  OrganizationResource,
  'A page of the organizations the caller belongs to (all of them for a site admin), newest first',
);

const Entitlement = Type.Boolean();
export const EntitlementSetResource = Resource('EntitlementSet', 'entitlement-sets', {
  attributes: {
    agents: Entitlement,
    'policy-enforcement': Entitlement,
    sentinel: Entitlement,
    teams: Entitlement,
    'state-storage': Entitlement,
    operations: Entitlement,
    'vcs-integrations': Entitlement,
    'private-module-registry': Entitlement,
    'cost-estimation': Entitlement,
    'run-tasks': Entitlement,
    'audit-logging': Entitlement,
    sso: Entitlement,
    'user-limit': IntegerOrNull(),
    'policy-set-limit': IntegerOrNull(),
    'policy-limit': IntegerOrNull(),
  },
});

export const EntitlementSetDocument = Document(EntitlementSetResource, 'What this installation offers the organization (Hangar has no paid tiers)');

// ---- TFE's admin API for organizations (site admins)

export const AdminOrganizationsQuery = Type.Object({
  ...PageParams,
  /** A substring of the name or the notification e-mail address, in any case. */
  q: Type.Optional(Type.String()),
  /** `owners` adds the owners team's members to `included`. */
  include: Type.Optional(Type.String()),
});

export const AdminOrganizationParams = Type.Object({ organization_name: Type.String() });

const Duration = Type.String({ description: 'a Go duration such as "2h": HANGAR_RUN_TIMEOUT, the limit every plan and apply of this installation runs under' });
const Fixed = (description: string) => Type.Boolean({ description });

export const AdminOrganizationResource = Resource('AdminOrganization', 'organizations', {
  attributes: {
    name: Type.String(),
    'external-id': Type.String(),
    'notification-email': Type.String(),
    'created-at': Timestamp,
    'access-beta-tools': Fixed('always false: Hangar has no beta tools'),
    'global-module-sharing': Fixed('always false: Hangar has no module registry'),
    'global-provider-sharing': Fixed('always false: Hangar has no provider registry'),
    'is-disabled': Fixed('always false: organizations cannot be disabled, only deleted'),
    'sso-enabled': Fixed('always false: Hangar has no SSO'),
    'terraform-worker-sudo-enabled': Fixed('always false: jobs never run with sudo'),
    'terraform-build-worker-apply-timeout': Duration,
    'terraform-build-worker-plan-timeout': Duration,
    'apply-timeout': Duration,
    'plan-timeout': Duration,
    'workspace-limit': IntegerOrNull({ description: 'always null: no limit' }),
  },
  relationships: { owners: ToMany('users') },
  description: "An organization as TFE's admin API shows it to site admins; its id is its name",
});

export const AdminOrganizationDocument = Document(AdminOrganizationResource, 'The organization, as a site admin sees it');
export const AdminOrganizationListDocument = ListDocument(AdminOrganizationResource, 'A page of every organization of the installation, newest first', {
  included: UserResource,
});
