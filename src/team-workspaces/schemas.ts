import { Type } from 'typebox';
import { WORKSPACE_ACCESS_LEVELS, WORKSPACE_ACCESS_SCALES as W } from '../grants.ts';
import { PageParams } from '../jsonapi/pagination.ts';
import { Required } from '../jsonapi/query.ts';
import { Document, ListDocument, Resource, ToOne } from '../jsonapi/schemas.ts';

export const TeamWorkspaceParams = Type.Object({ team_workspace_id: Type.String() });

export const ListTeamWorkspacesQuery = Type.Object({
  ...PageParams,
  'filter[workspace][id]': Required,
});

const Scale = <const T extends readonly string[]>(values: T) => Type.Optional(Type.Unsafe<T[number]>(Type.Enum([...values])));
const Flag = Type.Optional(Type.Boolean());
const Access = Type.Enum([...WORKSPACE_ACCESS_LEVELS]);

/** The custom permissions, flat on the attributes as TFE takes them. */
const Custom = {
  runs: Scale(W.runs),
  variables: Scale(W.variables),
  'state-versions': Scale(W['state-versions']),
  'sentinel-mocks': Scale(W['sentinel-mocks']),
  'workspace-locking': Flag,
  'run-tasks': Flag,
};

const Ref = (type: string) => Type.Object({ data: Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 64 }) }) });

export const CreateTeamWorkspaceBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('team-workspaces'),
    attributes: Type.Object({ access: Access, ...Custom }),
    relationships: Type.Object({ workspace: Ref('workspaces'), team: Ref('teams') }),
  }),
});

export const UpdateTeamWorkspaceBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('team-workspaces'),
    attributes: Type.Optional(Type.Object({ access: Type.Optional(Access), ...Custom })),
  }),
});

const Level = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>(Type.Enum([...values]));

export const TeamWorkspaceResource = Resource('TeamWorkspace', 'team-workspaces', {
  attributes: {
    access: Level(WORKSPACE_ACCESS_LEVELS),
    runs: Level(W.runs),
    variables: Level(W.variables),
    'state-versions': Level(W['state-versions']),
    'sentinel-mocks': Level(W['sentinel-mocks']),
    'workspace-locking': Type.Boolean(),
    'run-tasks': Type.Boolean(),
  },
  relationships: { team: ToOne('teams'), workspace: ToOne('workspaces') },
});

export const TeamWorkspaceDocument = Document(TeamWorkspaceResource, "The team's access to the workspace");
export const TeamWorkspaceListDocument = ListDocument(TeamWorkspaceResource, "A page of teams' access to the workspace");
