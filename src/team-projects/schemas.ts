import { Type } from 'typebox';
import { PROJECT_ACCESS_LEVELS, PROJECT_ACCESS_SCALES as P, WORKSPACE_ACCESS_SCALES as W } from '../grants.ts';
import { PageParams } from '../jsonapi/pagination.ts';
import { Required } from '../jsonapi/query.ts';
import { Document, ListDocument, Open, Resource, ToOne } from '../jsonapi/schemas.ts';

export const TeamProjectParams = Type.Object({ team_project_id: Type.String() });

export const ListTeamProjectsQuery = Type.Object({
  ...PageParams,
  'filter[project][id]': Required,
  'filter[team][id]': Type.Optional(Type.String()),
});

const Scale = <const T extends readonly string[]>(values: T) => Type.Optional(Type.Unsafe<T[number]>(Type.Enum([...values])));
const Flag = Type.Optional(Type.Boolean());

const Access = Type.Enum([...PROJECT_ACCESS_LEVELS]);
const ProjectAccess = Type.Object({ settings: Scale(P.settings), teams: Scale(P.teams), 'variable-sets': Scale(P['variable-sets']) });
const WorkspaceAccess = Type.Object({
  runs: Scale(W.runs),
  'sentinel-mocks': Scale(W['sentinel-mocks']),
  'state-versions': Scale(W['state-versions']),
  variables: Scale(W.variables),
  create: Flag,
  locking: Flag,
  delete: Flag,
  move: Flag,
  'run-tasks': Flag,
});

const Ref = (type: string) => Type.Object({ data: Type.Object({ type: Type.Literal(type), id: Type.String({ minLength: 1, maxLength: 64 }) }) });

export const CreateTeamProjectBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('team-projects'),
    attributes: Type.Object({
      access: Access,
      'project-access': Type.Optional(ProjectAccess),
      'workspace-access': Type.Optional(WorkspaceAccess),
    }),
    relationships: Type.Object({ project: Ref('projects'), team: Ref('teams') }),
  }),
});

export const UpdateTeamProjectBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('team-projects'),
    attributes: Type.Optional(
      Type.Object({
        access: Type.Optional(Access),
        'project-access': Type.Optional(ProjectAccess),
        'workspace-access': Type.Optional(WorkspaceAccess),
      }),
    ),
  }),
});

// ---- responses

const scaleOf = (values: readonly string[]) => Type.String({ enum: [...values] });

export const TeamProjectResource = Resource('TeamProject', 'team-projects', {
  attributes: {
    access: Type.String({ enum: [...PROJECT_ACCESS_LEVELS] }),
    'project-access': Open(
      { settings: scaleOf(P.settings), teams: scaleOf(P.teams), 'variable-sets': scaleOf(P['variable-sets']) },
      { description: 'every project permission at its effective value, whatever the level' },
    ),
    'workspace-access': Open(
      {
        runs: scaleOf(W.runs),
        'sentinel-mocks': scaleOf(W['sentinel-mocks']),
        'state-versions': scaleOf(W['state-versions']),
        variables: scaleOf(W.variables),
        create: Type.Boolean(),
        locking: Type.Boolean(),
        delete: Type.Boolean(),
        move: Type.Boolean(),
        'run-tasks': Type.Boolean(),
      },
      { description: "every permission on the project's workspaces at its effective value" },
    ),
  },
  relationships: { team: ToOne('teams'), project: ToOne('projects') },
});

export const TeamProjectDocument = Document(TeamProjectResource, "The team's access to the project");
export const TeamProjectListDocument = ListDocument(TeamProjectResource, "A page of teams' access to the project");
