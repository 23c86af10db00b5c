// The one place that reads process.env. Every setting is validated here so a bad value stops
// start-up with a message naming the variable, instead of failing later on a request.
import { isIP } from 'node:net';
import path from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  /** Absolute origin for links, e.g. `https://hangar.example.com`; null = derive from the request. */
  baseUrl: string | null;
  logLevel: LogLevel;
  /** Raw `HANGAR_ENCRYPTION_KEY` value (comma-separated base64 keys), null when unset. */
  encryptionKeys: string | null;
  /** Requests per second per caller (and per client address without a valid token); 0 = off. */
  rateLimit: number;
  /** Shares rate-limit budgets between instances; null = each process counts alone. */
  redisUrl: string | null;
  redisKeyPrefix: string;
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDRs); null = none. */
  trustProxy: string[] | null;
  /** A separate listener for /metrics; null = none. */
  metricsPort: number | null;
  metricsHost: string;
  /** Bearer token for /metrics; when set, /metrics is also served on the public port. */
  metricsToken: string | null;
  /** How long a shutdown may wait for in-flight requests before the process exits anyway. */
  shutdownTimeoutMs: number;
  /** PEM files that make Hangar serve HTTPS itself; null = plain HTTP (or TLS at a proxy). */
  tls: { certFile: string; keyFile: string } | null;
  /** Jobs this instance executes at once (`0`: it serves the API only; runs wait for other instances). */
  runnerConcurrency: number;
  /** Wall-clock limit of one plan or apply. */
  runTimeoutMs: number;
  /** How long a running job's runner (a worker here, or an agent) may stay silent before its run is errored (`HANGAR_RUNNER_SILENCE_TIMEOUT`). */
  runnerSilenceMs: number;
  /** Wall-clock bound of one policy's evaluation in a policy check. */
  policyTimeoutMs: number;
  policyMemoryMb: number;
  /** Log bytes kept per plan or apply. */
  runMaxLogBytes: number;
  /** `hangar agent`: where Hangar is, the agent token, the agent's name, jobs at once (checked by the agent command). */
  agent: { url: string | null; token: string | null; name: string | null; concurrency: number };
  /** The terraform binary jobs run (`terraform`: found on PATH). */
  terraformBinary: string;
  /** Passed to jobs as TF_PLUGIN_CACHE_DIR / TF_CLI_CONFIG_FILE (a provider cache or mirror); null = none. */
  terraformPluginCacheDir: string | null;
  terraformCliConfigFile: string | null;
  /** HANGAR_BLOB_DIR: keep blobs (state, archives, plan files, logs) as sealed files here instead of in the database. */
  blobDir: string | null;
  /** `HANGAR_TERRAFORM_MIRROR`: a releases-layout URL other `terraform-version`s are fetched from; null = none. */
  terraformMirror: string | null;
  /** Single sign-on with an OpenID Connect provider (HANGAR_OIDC_*); null = off. */
  oidc: OidcConfig | null;
}

export interface OidcConfig {
  /** The provider's issuer URL (its discovery document is under it). */
  issuer: string;
  clientId: string;
  /** Null: a public client (PKCE alone authenticates the code exchange). */
  clientSecret: string | null;
  /** The ID token claim that matches a provider account to a Hangar user the first time: `email` (users' addresses) or any other (usernames). */
  claim: string;
  /** Whether an account that matches nobody becomes a new user (else it is refused). */
  createUsers: boolean;
  scopes: string[];
  /** What the sign-in page's button says: "Sign in with <name>". */
  name: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.HANGAR_DATA_DIR || './data');
  const port = env.HANGAR_PORT === undefined || env.HANGAR_PORT === '' ? 8080 : Number(env.HANGAR_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`HANGAR_PORT must be an integer from 0 to 65535, got "${env.HANGAR_PORT}"`);
  }
  const databaseUrl = env.HANGAR_DATABASE_URL || `sqlite:${path.join(dataDir, 'hangar.db')}`;
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('HANGAR_DATABASE_URL must start with "sqlite:" or "postgres://"');
  }
  checkDatabaseUrl(databaseUrl);
  let baseUrl: string | null = null;
  if (env.HANGAR_BASE_URL) {
    let parsed: URL;
    try {
      parsed = new URL(env.HANGAR_BASE_URL);
    } catch {
      throw new ConfigError(`HANGAR_BASE_URL must be an absolute http(s) URL, got "${env.HANGAR_BASE_URL}"`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ConfigError(`HANGAR_BASE_URL must be an absolute http(s) URL, got "${env.HANGAR_BASE_URL}"`);
    }
    baseUrl = parsed.origin + parsed.pathname.replace(/\/+$/, '');
  }
  const logLevel = (env.HANGAR_LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`HANGAR_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.HANGAR_LOG_LEVEL}"`);
  }
  const rateLimit = integer(env, 'HANGAR_RATE_LIMIT', 30, 0, 1_000_000);
  // go-tfe paces itself at 2/3 of the advertised limit with a burst of a third of it, rounded
  // down: below 4 its burst is 0 and it cannot send a single request.
  if (rateLimit > 0 && rateLimit < 4) {
    throw new ConfigError(`HANGAR_RATE_LIMIT must be 0 (off) or at least 4 (go-tfe cannot pace itself below 4), got "${env.HANGAR_RATE_LIMIT}"`);
  }
  let redisUrl: string | null = null;
  if (env.HANGAR_REDIS_URL) {
    if (!/^rediss?:\/\//.test(env.HANGAR_REDIS_URL) || !URL.canParse(env.HANGAR_REDIS_URL)) {
      throw new ConfigError('HANGAR_REDIS_URL must be a redis:// or rediss:// URL');
    }
    redisUrl = env.HANGAR_REDIS_URL;
  }
  let trustProxy: string[] | null = null;
  if (env.HANGAR_TRUST_PROXY) {
    trustProxy = env.HANGAR_TRUST_PROXY.split(',').map((s) => s.trim());
    for (const item of trustProxy) {
      const [address, bits, extra] = item.split('/');
      const family = isIP(address ?? '');
      const maxBits = family === 6 ? 128 : 32;
      if (!family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
        throw new ConfigError(`HANGAR_TRUST_PROXY must be comma-separated IP addresses or CIDR ranges of your proxies, got "${item}"`);
      }
    }
  }
  const metricsPort = env.HANGAR_METRICS_PORT ? integer(env, 'HANGAR_METRICS_PORT', 0, 0, 65535) : null;
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('HANGAR_METRICS_PORT must differ from HANGAR_PORT (metrics are served by a listener of their own)');
  }
  const metricsToken = env.HANGAR_METRICS_TOKEN || null;
  if (metricsToken !== null && (metricsToken.length < 16 || /\s/.test(metricsToken))) {
    throw new ConfigError('HANGAR_METRICS_TOKEN must be at least 16 characters without spaces (e.g. `openssl rand -hex 24`)');
  }
  const certFile = env.HANGAR_TLS_CERT_FILE || null;
  const keyFile = env.HANGAR_TLS_KEY_FILE || null;
  if ((certFile === null) !== (keyFile === null)) {
    throw new ConfigError(
      `HANGAR_TLS_CERT_FILE and HANGAR_TLS_KEY_FILE must be set together (only ${certFile ? 'HANGAR_TLS_CERT_FILE' : 'HANGAR_TLS_KEY_FILE'} is set)`,
    );
  }
  return {
    host: env.HANGAR_HOST || '127.0.0.1',
    port,
    dataDir,
    databaseUrl,
    baseUrl,
    logLevel,
    encryptionKeys: env.HANGAR_ENCRYPTION_KEY || null,
    rateLimit,
    redisUrl,
    redisKeyPrefix: env.HANGAR_REDIS_KEY_PREFIX || 'hangar:ratelimit:',
    trustProxy,
    metricsPort,
    metricsHost: env.HANGAR_METRICS_HOST || '127.0.0.1',
    metricsToken,
    shutdownTimeoutMs: integer(env, 'HANGAR_SHUTDOWN_TIMEOUT', 10, 1, 3600) * 1000,
    tls: certFile && keyFile ? { certFile: path.resolve(certFile), keyFile: path.resolve(keyFile) } : null,
    runnerConcurrency: integer(env, 'HANGAR_RUNNER_CONCURRENCY', 1, 0, 64),
    runTimeoutMs: integer(env, 'HANGAR_RUN_TIMEOUT', 3600, 10, 86_400) * 1000,
    runnerSilenceMs: integer(env, 'HANGAR_RUNNER_SILENCE_TIMEOUT', 60, 5, 3600) * 1000,
    policyTimeoutMs: integer(env, 'HANGAR_POLICY_TIMEOUT', 10, 1, 3600) * 1000,
    policyMemoryMb: integer(env, 'HANGAR_POLICY_MEMORY', 512, 32, 16_384),
    runMaxLogBytes: integer(env, 'HANGAR_RUN_MAX_LOG_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    agent: {
      url: env.HANGAR_AGENT_URL || null,
      token: env.HANGAR_AGENT_TOKEN || null,
      name: env.HANGAR_AGENT_NAME || null,
      concurrency: integer(env, 'HANGAR_AGENT_CONCURRENCY', 1, 1, 64),
    },
    terraformBinary: env.HANGAR_TERRAFORM_BINARY || 'terraform',
    terraformPluginCacheDir: env.HANGAR_TERRAFORM_PLUGIN_CACHE_DIR || null,
    terraformCliConfigFile: env.HANGAR_TERRAFORM_CLI_CONFIG_FILE || null,
    terraformMirror: env.HANGAR_TERRAFORM_MIRROR || null,
    oidc: oidcConfig(env),
    blobDir: env.HANGAR_BLOB_DIR ? path.resolve(env.HANGAR_BLOB_DIR) : null,
  };
}

const OIDC_CLAIM = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** HANGAR_OIDC_*: all or nothing, each checked, so that a half-configured SSO stops start-up. */
function oidcConfig(env: NodeJS.ProcessEnv): OidcConfig | null {
  const issuer = env.HANGAR_OIDC_ISSUER || null;
  const clientId = env.HANGAR_OIDC_CLIENT_ID || null;
  const clientSecret = env.HANGAR_OIDC_CLIENT_SECRET || null;
  const claim = env.HANGAR_OIDC_CLAIM || 'email';
  const createUsers = env.HANGAR_OIDC_CREATE_USERS || 'false';
  const scopes = (env.HANGAR_OIDC_SCOPES || 'openid email profile').split(/\s+/).filter(Boolean);
  const name = env.HANGAR_OIDC_NAME || 'SSO';
  if (issuer === null) {
    const stray = ['HANGAR_OIDC_CLIENT_ID', 'HANGAR_OIDC_CLIENT_SECRET'].filter((n) => env[n]);
    if (stray.length) throw new ConfigError(`${stray.join(' and ')} set without HANGAR_OIDC_ISSUER (single sign-on needs the provider's issuer URL)`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`HANGAR_OIDC_ISSUER must be the provider's issuer URL (https://…), got "${issuer}"`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new ConfigError(`HANGAR_OIDC_ISSUER must be an https:// URL (plain http only for a provider on this machine), got "${issuer}"`);
  }
  if (url.username || url.password || url.search || url.hash)
    throw new ConfigError('HANGAR_OIDC_ISSUER must be a plain URL, without credentials, query or fragment');
  if (clientId === null)
    throw new ConfigError('HANGAR_OIDC_CLIENT_ID is required with HANGAR_OIDC_ISSUER (the client Hangar is registered as at the provider)');
  if (!OIDC_CLAIM.test(claim)) throw new ConfigError(`HANGAR_OIDC_CLAIM must be the name of an ID token claim (email, preferred_username, …), got "${claim}"`);
  if (createUsers !== 'true' && createUsers !== 'false') throw new ConfigError(`HANGAR_OIDC_CREATE_USERS must be true or false, got "${createUsers}"`);
  if (!scopes.includes('openid')) throw new ConfigError('HANGAR_OIDC_SCOPES must include openid');
  if (name.length > 40) throw new ConfigError('HANGAR_OIDC_NAME must be at most 40 characters');
  return { issuer, clientId, clientSecret, claim, createUsers: createUsers === 'true', scopes, name };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/**
 * A PostgreSQL URL must parse and name a host, or the driver fails later with a message that
 * does not mention the setting. The value itself is never repeated: it may hold a password.
 */
function checkDatabaseUrl(url: string): void {
  if (url.startsWith('sqlite:')) {
    if (url === 'sqlite:') throw new ConfigError('HANGAR_DATABASE_URL "sqlite:" names no file; use sqlite:<path>');
    return;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(
      'HANGAR_DATABASE_URL is not a valid URL; expected postgres://user[:password]@host[:port]/database (percent-encode special characters in the password)',
    );
  }
  if (!parsed.hostname && !parsed.searchParams.has('host')) {
    throw new ConfigError('HANGAR_DATABASE_URL names no host; expected postgres://user[:password]@host[:port]/database');
  }
  try {
    decodeURIComponent(parsed.username);
    decodeURIComponent(parsed.password);
    decodeURIComponent(parsed.pathname);
  } catch {
    throw new ConfigError('HANGAR_DATABASE_URL has a malformed percent-encoding in its user, password or database name');
  }
}

/**
 * `HANGAR_*` variables that Hangar's own test, benchmark and conformance scripts read. They are
 * not settings of the server, so they are never warned about.
 */
const TOOLING_VARIABLES = /^HANGAR_(TEST|BENCH|CONFORMANCE|FUZZ|RACE)_/;

/** The names loadConfig reads: every setting there is, whatever their values. */
function settingNames(env: NodeJS.ProcessEnv): Set<string> {
  const read = new Set<string>();
  const recording = (source: NodeJS.ProcessEnv) =>
    new Proxy(source, {
      get: (target, name) => {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    });
  loadConfig(recording({}));
  // With the real values too: a setting read only when another is set is still a setting.
  try {
    loadConfig(recording(env));
  } catch {
    // The caller reports a bad value; only the names matter here.
  }
  return read;
}

/**
 * One warning per `HANGAR_*` variable that is not a setting (a misspelt one is silently ignored
 * otherwise: `HANGAR_TLS_CERT` served plain HTTP), each with the closest setting's name.
 */
export function unknownSettingWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = [...settingNames(env)];
  return Object.keys(env)
    .filter((name) => name.startsWith('HANGAR_') && !known.includes(name) && !TOOLING_VARIABLES.test(name))
    .sort()
    .map((name) => {
      const closest = known.reduce((best, candidate) => (editDistance(name, candidate) < editDistance(name, best) ? candidate : best));
      return `${name} is not a Hangar setting and is ignored; did you mean ${closest}?`;
    });
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Plain HTTP where others can connect: tokens would cross the network in clear. Not said when
 * Hangar serves TLS itself, listens on loopback only, or trusts a proxy (which terminates TLS).
 */
export function plainHttpWarning(config: Pick<Config, 'host' | 'tls' | 'trustProxy'>): string | null {
  if (config.tls || config.trustProxy) return null;
  const host = config.host.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'))) return null;
  return (
    `serving plain HTTP on ${config.host}, which is not a loopback address: API tokens cross the network in clear text; ` +
    'set HANGAR_TLS_CERT_FILE and HANGAR_TLS_KEY_FILE, or put a TLS-terminating proxy in front and set HANGAR_TRUST_PROXY to its address'
  );
}
