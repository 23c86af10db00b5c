// The job protocol's bodies and answers under /api/agent (plain JSON). Bytes travel as base64
// strings, so the whole protocol is one media type.
import { Type } from 'typebox';
import { Open } from '../jsonapi/schemas.ts';

/** `<agent id>/<slot>`: which registered agent of the pool, and which of its job slots, holds a job. */
export const Runner = Type.String({ pattern: '^agent-[0-9A-Za-z]{1,32}/[0-9]{1,3}$', maxLength: 64, description: '<agent id>/<slot>' });
const Base64 = (description: string) => Type.String({ contentEncoding: 'base64', description });
const Counts = Type.Object({
  additions: Type.Integer({ minimum: 0 }),
  changes: Type.Integer({ minimum: 0 }),
  destructions: Type.Integer({ minimum: 0 }),
  imports: Type.Integer({ minimum: 0 }),
});

export const JobParams = Type.Object({ job_id: Type.String({ maxLength: 64 }) });
export const RunnerQuery = Type.Object({ runner: Runner });

export const ClaimBody = Type.Object({
  runner: Runner,
  wait: Type.Optional(Type.Integer({ minimum: 0, maximum: 30, description: 'Seconds to wait for a job when none is queued (long poll)' })),
});
export const RunnerBody = Type.Object({ runner: Runner });
export const LogBody = Type.Object({ runner: Runner, chunk: Base64('The next bytes of the log') });
export const PlannedBody = Type.Object({
  runner: Runner,
  'plan-file': Base64('The plan file (`terraform plan -out`)'),
  'plan-json': Type.String({ description: '`terraform show -json` of the plan, sensitive values redacted' }),
  counts: Counts,
  'has-changes': Type.Boolean(),
});
export const AppliedBody = Type.Object({
  runner: Runner,
  state: Type.Union([Base64('The new state, when the apply changed it'), Type.Null()]),
  counts: Counts,
});
export const FailedBody = Type.Object({
  runner: Runner,
  reason: Type.String({ minLength: 1, maxLength: 1000 }),
  state: Type.Optional(Type.Union([Base64('What a failed apply changed, when it changed the state'), Type.Null()])),
});

// ---- answers

export const ClaimedJob = Open(
  {
    id: Type.String(),
    'run-id': Type.String(),
    phase: Type.String({ enum: ['plan', 'apply'] }),
    runner: Type.String(),
  },
  { description: 'The job now held by the runner' },
);
export const Proceed = Open({ proceed: Type.Boolean({ description: 'false: the run moved on (canceled); do not run the job' }) });
export const CarryOn = Open({
  'carry-on': Type.Boolean({ description: 'false: the job was force-canceled, errored or taken away; stop terraform at once' }),
  // A separate flag rather than a third value of `carry-on`, so an agent that predates it still
  // stops: it carries on until the force-cancel, whose false it understands.
  'cancel-requested': Type.Boolean({ description: 'true: a cancel was requested; interrupt terraform (as Ctrl-C does), keep beating, and report the outcome' }),
});

const Variable = Open({
  key: Type.String(),
  value: Type.String(),
  category: Type.String({ enum: ['terraform', 'env'] }),
  hcl: Type.Boolean(),
  sensitive: Type.Boolean(),
});
export const JobInputsDocument = Open(
  {
    'run-id': Type.String(),
    'workspace-id': Type.String(),
    phase: Type.String({ enum: ['plan', 'apply'] }),
    'is-destroy': Type.Boolean(),
    refresh: Type.Boolean(),
    'refresh-only': Type.Boolean(),
    'target-addrs': Type.Array(Type.String()),
    'replace-addrs': Type.Array(Type.String()),
    archive: Base64('The configuration version (.tar.gz)'),
    state: Type.Union([Base64("The workspace's current state"), Type.Null()]),
    variables: Type.Array(Variable, { description: 'Sensitive values included: only the runner holding the job receives them' }),
    'plan-file': Type.Union([Base64('For an apply: the plan file its plan produced'), Type.Null()]),
    'ssh-key': Type.Optional(
      Type.Union([
        Type.String({
          description:
            "The private key of the workspace's SSH key, for terraform init to clone modules over git+ssh; only the runner holding the job receives it",
        }),
        Type.Null(),
      ]),
    ),
    'terraform-version': Type.Union([
      Type.String({ description: "The workspace's terraform-version; the agent fetches it from its HANGAR_TERRAFORM_MIRROR when its own binary differs" }),
      Type.Null(),
    ]),
  },
  { description: 'What the job needs to run' },
);
