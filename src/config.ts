// The one place that reads process.env. Every setting is validated here so a bad value stops
// start-up with a message naming the variable, instead of failing later on a request.
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
  return {
    host: env.HANGAR_HOST || '127.0.0.1',
    port,
    dataDir,
    databaseUrl,
    baseUrl,
    logLevel,
    encryptionKeys: env.HANGAR_ENCRYPTION_KEY || null,
  };
}
