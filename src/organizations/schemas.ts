import { Type } from 'typebox';
import { PageParams } from '../jsonapi/pagination.ts';

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
    'default-agent-pool': Type.Optional(
      Type.Object({ data: Type.Union([Type.Object({ type: Type.Literal('agent-pools'), id: PoolId }), Type.Null()]) }),
    ),
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
