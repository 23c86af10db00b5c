// Start-up failures an operator can fix, each told as one line that names the setting to change
// (no stack trace: nothing is wrong with Hangar). Anything not recognised here is a bug and is
// printed in full by main.ts.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { ensurePrivateDirectory } from '../files.ts';

/** A failure whose message is the whole story. */
export class StartupError extends Error {}

const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOTDIR: 'part of the path is a file',
  EEXIST: 'it is a file',
  ENOSPC: 'no space left on the device',
};

function fsReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  return FS_REASONS[code] ?? code;
}

/**
 * The data directory (and the directory of a SQLite file elsewhere) must exist or be creatable,
 * and be writable: the SQLite file, its journal and a generated key live there. SQLite's own
 * error ("unable to open database file") would not say which directory.
 */
export function checkDirectories(config: Config): void {
  const defaultFile = `sqlite:${path.join(config.dataDir, 'hangar.db')}`;
  const needed: Array<[string, string]> = [];
  if (config.databaseUrl.startsWith('sqlite:') && config.databaseUrl !== defaultFile) {
    const file = config.databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:') needed.push([path.dirname(path.resolve(file)), 'HANGAR_DATABASE_URL']);
  }
  // The data directory holds the default SQLite file, and the generated key when none is set.
  if (config.databaseUrl === defaultFile || (config.databaseUrl.startsWith('sqlite:') && config.encryptionKeys === null)) {
    needed.push([config.dataDir, 'HANGAR_DATA_DIR']);
  }
  for (const [dir, setting] of needed) {
    try {
      ensurePrivateDirectory(dir);
    } catch (error) {
      throw new StartupError(`cannot create the data directory ${dir} (${fsReason(error)}); set ${setting} to a writable directory`);
    }
    try {
      accessSync(dir, constants.W_OK);
    } catch (error) {
      throw new StartupError(`the data directory ${dir} is not writable (${fsReason(error)}); set ${setting} to a writable directory`);
    }
  }
}

/** `listen()`, with the reasons it fails told in terms of the settings behind it. */
export async function listenOrExplain<T>(
  listen: () => Promise<T>,
  where: { host: string; port: number; hostSetting: string; portSetting: string },
): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const at = `${where.host}:${where.port}`;
    if (code === 'EADDRINUSE') throw new StartupError(`${at} is already in use; stop what is listening there or set ${where.portSetting} to a free port`);
    if (code === 'EACCES')
      throw new StartupError(`not permitted to listen on ${at} (ports below 1024 need privileges); set ${where.portSetting} to another port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new StartupError(`cannot listen on ${where.host}: not an address of this machine; set ${where.hostSetting} to one (e.g. 127.0.0.1 or 0.0.0.0)`);
    }
    throw error;
  }
}

/** Where the configured PostgreSQL server is, for messages: never the user's password. */
function server(config: Config): { at: string; user: string; database: string } {
  try {
    const url = new URL(config.databaseUrl);
    const host = url.hostname || url.searchParams.get('host') || 'localhost';
    return {
      at: `${host}:${url.port || 5432}`,
      user: decodeURIComponent(url.username) || '(default user)',
      database: decodeURIComponent(url.pathname.slice(1)),
    };
  } catch {
    return { at: 'the configured server', user: '', database: '' };
  }
}

const NETWORK: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
};

/** The error itself, or the first of an AggregateError's (Node tries each address in turn). */
function root(error: unknown): { code?: string; message: string; hostname?: string } {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown[]; hostname?: unknown };
  const first = Array.isArray(e?.errors) && e.errors.length > 0 ? (e.errors[0] as typeof e) : undefined;
  const code = typeof e?.code === 'string' ? e.code : typeof first?.code === 'string' ? first.code : undefined;
  const message = typeof e?.message === 'string' && e.message ? e.message : String(first?.message ?? error);
  return { code, message, hostname: typeof e?.hostname === 'string' ? e.hostname : undefined };
}

/** One line for a database failure an operator can fix, or null when it is not one. */
function explainDatabase(error: unknown, config: Config): string | null {
  if (!config.databaseUrl.startsWith('postgres')) {
    const { message } = root(error);
    if (/unable to open database file|readonly database|disk I\/O error/i.test(message)) {
      return `cannot open the SQLite database ${config.databaseUrl.slice('sqlite:'.length)} (${message}); check HANGAR_DATA_DIR (or HANGAR_DATABASE_URL)`;
    }
    return null;
  }
  const { at, user, database } = server(config);
  const { code, message, hostname } = root(error);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `cannot resolve the PostgreSQL host "${hostname ?? at.split(':')[0]}" (DNS); correct the host in HANGAR_DATABASE_URL`;
  }
  if (code && NETWORK[code]) return `cannot connect to PostgreSQL at ${at} (${NETWORK[code]}); start it or correct HANGAR_DATABASE_URL`;
  if (/timeout|timed out/i.test(message))
    return `PostgreSQL at ${at} did not answer in time; check that it is running and reachable, or correct HANGAR_DATABASE_URL`;
  switch (code) {
    case '3D000':
      return `the PostgreSQL database "${database}" does not exist on ${at}; create it (createdb ${database}) or correct HANGAR_DATABASE_URL`;
    case '28000':
      return `PostgreSQL at ${at} refused user "${user}": ${message}; create the role or correct the user in HANGAR_DATABASE_URL`;
    case '28P01':
      return `PostgreSQL at ${at} refused the password of user "${user}"; correct the password in HANGAR_DATABASE_URL`;
    case '42501':
      return `PostgreSQL user "${user}" lacks a privilege Hangar needs (${message}); grant it or use another user in HANGAR_DATABASE_URL`;
  }
  // pg's SCRAM code complains this way when the server wants a password and the URL has none.
  if (/SASL|password must be a string/i.test(message)) return `PostgreSQL at ${at} asks user "${user}" for a password; add it to HANGAR_DATABASE_URL`;
  return null;
}

/** The one line to print for a start-up failure an operator can fix; null for anything else. */
export function explainStartupError(error: unknown, config: Config | null): string | null {
  if (error instanceof StartupError) return error.message;
  if (!config) return null;
  const database = explainDatabase(error, config);
  if (database) return database;
  const e = error as NodeJS.ErrnoException;
  if (typeof e?.path === 'string' && e.code && FS_REASONS[e.code]) {
    return `cannot write ${e.path} (${FS_REASONS[e.code]}); set HANGAR_DATA_DIR to a writable directory`;
  }
  return null;
}

/**
 * Which database a command used, for the operator: `sqlite /abs/path/hangar.db` or
 * `postgres host:port/database`. Never the user's password (nor the user: it is not needed to
 * tell two databases apart).
 */
export function databaseLabel(config: Pick<Config, 'databaseUrl'>): string {
  if (config.databaseUrl.startsWith('sqlite:')) {
    const file = config.databaseUrl.slice('sqlite:'.length);
    return `sqlite ${file === ':memory:' ? file : path.resolve(file)}`;
  }
  const { at, database } = server(config as Config);
  return `postgres ${at}/${database}`;
}
