import { Type } from 'typebox';
import { PROJECT_ACCESS_LEVELS, PROJECT_ACCESS_SCALES, WORKSPACE_ACCESS_FLAGS, WORKSPACE_ACCESS_SCALES } from '../auth/permissions.ts';

export const TeamProjectParams = Type.Object({ team_project_id: Type.String() });

const scaleFields = (scales: Record<string, readonly string[]>) =>
  Object.fromEntries(Object.entries(scales).map(([k, values]) => [k, Type.Optional(Type.Enum([...values]))]));

const Access = Type.Enum([...PROJECT_ACCESS_LEVELS]);
const ProjectAccess = Type.Object(scaleFields(PROJECT_ACCESS_SCALES));
const WorkspaceAccess = Type.Object({
  ...scaleFields(WORKSPACE_ACCESS_SCALES),
  ...Object.fromEntries(WORKSPACE_ACCESS_FLAGS.map((k) => [k, Type.Optional(Type.Boolean())])),
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
