// The rules for kinds of values that requests carry, each with the 422 detail a value that breaks
// it gets (worded as TFE words them). Body schemas check types and sizes before a request is
// handled; these rules run in the services, after the caller has been authorized, so that a
// caller who may not see something learns nothing from a 422.
import { errors, type Problem } from './jsonapi/errors.ts';

/** A kind of value: `problem` answers the detail of what is wrong with a value, or null. */
export interface ValueType {
  problem(value: string): string | null;
}

const LETTERS_DIGITS_DASH_UNDERSCORE = /^[A-Za-z0-9_-]+$/;

/** Names of organizations, workspaces, policy sets and agent pools. */
export const Name: ValueType = {
  problem: (v) => (LETTERS_DIGITS_DASH_UNDERSCORE.test(v) ? null : 'Name may only contain letters, numbers, "-" and "_"'),
};

/**
 * The longest name that may appear as one segment of a URL (organization and workspace names),
 * and the router's limit for a path parameter: the two must agree, or a name could be created
 * and then answer 414 at every URL naming it. 90 is the limit TFE documents for workspace names;
 * it documents none for organizations, so they get the same.
 */
export const URL_NAME_MAX = 90;

const SPACED_NAME = /^[A-Za-z0-9 _-]+$/;
/**
 * Team names may also hold spaces, but not at either end. TFE's documentation allows only
 * letters, numbers, "-" and "_", but the service accepts `foo bar` (go-tfe renames a team to it).
 */
export const TeamName: ValueType = {
  problem: (v) =>
    SPACED_NAME.test(v) && v.trim() === v ? null : 'Name may only contain letters, numbers, spaces, "-" and "_", and may not begin or end with a space',
};

const WORKSPACE_NAME_MAX = URL_NAME_MAX;
export const WorkspaceName: ValueType = {
  problem: (v) => Name.problem(v) ?? (v.length > WORKSPACE_NAME_MAX ? `Name is too long (maximum is ${WORKSPACE_NAME_MAX} characters)` : null),
};

/** Organization names follow the workspace name rule: both name a URL segment. */
export const OrganizationName: ValueType = WorkspaceName;

/** Project names follow the team name rule, and are 3 to 40 characters long. */
export const ProjectName: ValueType = {
  problem: (v) => {
    if (v.length < 3) return 'Name is too short (minimum is 3 characters)';
    if (v.length > 40) return 'Name is too long (maximum is 40 characters)';
    return TeamName.problem(v);
  },
};

export const Description = (max: number): ValueType => ({
  problem: (v) => (v.length > max ? `Description is too long (maximum is ${max} characters)` : null),
});

const DURATION = /^(\d{1,4})[dh]$/;
/** `14d`, `36h`: one to four digits, greater than zero, then `d` (days) or `h` (hours). */
export const AutoDestroyDuration: ValueType = {
  problem: (v) => {
    const m = DURATION.exec(v);
    return m && Number(m[1]) > 0 ? null : "Auto destroy activity duration has an incorrect format, we expect up to 4 numeric digits and 1 unit ('d' or 'h')";
  },
};

/** A valid auto-destroy duration in milliseconds (`14d`, `36h`); null for anything else. */
export function autoDestroyDurationMs(v: string | null): number | null {
  const m = v === null ? null : DURATION.exec(v);
  if (!m || Number(m[1]) === 0) return null;
  return Number(m[1]) * (v!.endsWith('d') ? 86_400_000 : 3_600_000);
}

/** Where runs of a workspace execute. */
export type ExecutionMode = 'remote' | 'local' | 'agent';
export const EXECUTION_MODES: readonly ExecutionMode[] = ['remote', 'local', 'agent'];

// A version (`1.11.4`, `0.12`, `1.6.0-beta1`) with an optional operator; a constraint is one or
// more of these, separated by commas, as Terraform's `required_version` reads them.
const VERSION = String.raw`v?\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`;
const CONSTRAINT = new RegExp(String.raw`^\s*(?:(?:=|!=|>=|<=|>|<|~>)\s*)?${VERSION}\s*$`);
/**
 * A workspace's Terraform version: a version, a version constraint (`~> 1.5`, `>= 1.2, < 2.0`)
 * or TFE's pseudo-version `latest`. TFE also refuses versions it has not installed; Hangar runs
 * no Terraform, so any well-formed one is accepted.
 */
export const TerraformVersion: ValueType = {
  problem: (v) =>
    v === 'latest' || (v.length <= 100 && v.split(',').every((part) => CONSTRAINT.test(part)))
      ? null
      : `Terraform version "${v.slice(0, 100)}" is not a version, a version constraint, or "latest"`,
};

/** An absolute http or https URL. */
export const HttpUrl = (label: string): ValueType => ({
  problem: (v) => {
    let ok = false;
    try {
      const u = new URL(v);
      ok = u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      ok = false;
    }
    return ok ? null : `${label} must be an absolute http or https URL`;
  },
});

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The prefix of the service accounts behind organization tokens, which no person may take. */
export const SERVICE_ACCOUNT_PREFIX = 'api-org-';
export const Username: ValueType = {
  problem: (v) =>
    !USERNAME.test(v)
      ? 'Username may only contain letters, numbers, ".", "-" and "_" (1 to 64 characters)'
      : v.toLowerCase().startsWith(SERVICE_ACCOUNT_PREFIX)
        ? `Username may not begin with "${SERVICE_ACCOUNT_PREFIX}", which names organization service accounts`
        : null,
};

/** One `@` between a non-empty local part and domain, no spaces; no dot needed (`admin@localhost`). */
const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const Email: ValueType = { problem: (v) => (EMAIL.test(v) ? null : 'Email is invalid') };

// RFC 3339 date-time: a four-digit year, `T`, seconds, optional fraction, `Z` or an offset.
const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)$/;

/**
 * The instant an RFC 3339 timestamp names, as UTC text with milliseconds, or null when the text
 * is not one: a day the month does not have, an hour past 23, a year past 9999 (in UTC too, so
 * that the answer echoing it stays RFC 3339 for every client).
 */
export function utcTimestamp(v: string): string | null {
  const m = RFC3339.exec(v);
  if (!m) return null;
  const [, year, month, day, hour, minute, second] = m.map(Number) as number[];
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  // Date.parse rolls 31 April over to 1 May; a date that does not exist is refused instead.
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  if (calendar.getUTCMonth() !== month! - 1 || calendar.getUTCDate() !== day! || hour! > 23 || minute! > 59 || second! > 59) return null;
  const utc = new Date(t);
  return utc.getUTCFullYear() > 9999 ? null : utc.toISOString();
}

/** A timestamp attribute; `label` starts the detail (`Expired at`). */
export const Timestamp = (label: string): ValueType => ({
  problem: (v) => (utcTimestamp(v) === null ? `${label} must be an RFC 3339 timestamp with a year up to 9999, such as 2030-01-31T12:00:00Z` : null),
});

/** Names of variable sets: any text that is not blank, as TFE takes them. */
export const VariableSetName: ValueType = { problem: (v) => (v.trim() === '' ? "Name can't be blank" : null) };

/** Keys of policy set parameters and of variables. */
export const Key: ValueType = { problem: (v) => (v.trim() === '' ? "Key can't be blank" : null) };

/** The largest parameter value, in bytes of UTF-8: generous for a policy parameter. */
export const MAX_VALUE_BYTES = 256 * 1024;
/** Values of policy set parameters. */
export const ParameterValue: ValueType = {
  problem: (v) => (Buffer.byteLength(v, 'utf8') > MAX_VALUE_BYTES ? 'Value is too long (maximum is 256 KiB)' : null),
};

/** Names of SSH keys: any text that is not blank (go-tfe names them with random UUIDs). */
export const SshKeyName: ValueType = { problem: (v) => (v.trim() === '' ? "Name can't be blank" : null) };

/** Far above any private key's PEM (an 16384-bit RSA key is about 12 KiB). */
export const MAX_SSH_KEY_BYTES = 64 * 1024;
const PUBLIC_KEY = /^\s*(ssh-(rsa|dss|ed25519|ed448)|ecdsa-sha2-\S+|sk-\S+@openssh\.com)\s+AAAA|-----BEGIN (SSH2 |RSA )?PUBLIC KEY-----/;
/**
 * SSH private keys. TFE takes any text, and go-tfe's own tests send random UUIDs, so no format is
 * required; only a public key, the common mistake, is refused, since it could never authenticate.
 */
export const SshKeyValue: ValueType = {
  problem: (v) =>
    v.trim() === ''
      ? "Value can't be blank"
      : Buffer.byteLength(v, 'utf8') > MAX_SSH_KEY_BYTES
        ? 'Value is too long (maximum is 64 KiB)'
        : PUBLIC_KEY.test(v)
          ? 'Value must be the private key; this is a public key'
          : null,
};

/**
 * Checks the attributes sent, each against its type: `{ name: [Name, input.name] }`. Unsent
 * (undefined) and null values pass. Every problem is reported at once, each at its attribute.
 */
export function checkAttributes(checks: Record<string, readonly [ValueType, string | null | undefined]>): void {
  const problems: Problem[] = [];
  for (const [attribute, [type, value]] of Object.entries(checks)) {
    const detail = value === undefined || value === null ? null : type.problem(value);
    if (detail) problems.push({ pointer: `/data/attributes/${attribute}`, detail });
  }
  if (problems.length) throw errors.invalid(problems);
}
