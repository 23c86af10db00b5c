// Notification configurations, as TFE has them: a workspace names destinations (a generic
// webhook, Slack, Microsoft Teams, email) and the run events each wants. Reading them takes read
// access to the workspace; managing and verifying them, its admin right (`manage-notifications`).
// A team may have configurations too (TFE's, for change requests, which Hangar does not have:
// they are kept and verified, never fired); whoever sees the team reads them, whoever manages
// teams manages them.
//
// Delivery goes through an outbox: the runs domain tells this one of every status a run takes,
// inside the transaction that writes it (runs.onStatus), and the rows for the subscribed
// configurations are inserted there, so a notification exists exactly when the change committed.
// A deliverer on every instance claims due rows with a conditional UPDATE (after FOR UPDATE SKIP
// LOCKED on PostgreSQL), sends, and retries with backoff; the outcome, success or the last
// failure, becomes one of the configuration's `delivery-responses`. A claim is a lease: an
// instance that dies mid-send leaves the row to be sent again later (at least once, never twice
// while every instance lives).
import { authorize } from '../auth/authorize.ts';
import type { Caller } from '../auth/caller.ts';
import { loadedKeyring, type Keyring } from '../crypto/keyring.ts';
import { sensitiveValues } from '../crypto/sensitive-values.ts';
import { guarded } from '../db/constraints.ts';
import type { Database, Queryable } from '../db/index.ts';
import { hasPrefix, newId } from '../ids.ts';
import { ApiError, errors, type Problem } from '../jsonapi/errors.ts';
import type { Page } from '../jsonapi/pagination.ts';
import type { OrganizationLookup } from '../organizations/lookup.ts';
import type { OrganizationMembershipsService } from '../organization-memberships/service.ts';
import type { Run, RunsService } from '../runs/service.ts';
import { now } from '../time.ts';
import type { TeamsService } from '../teams/service.ts';
import type { UsersService } from '../users/service.ts';
import { Email, HttpUrl } from '../values.ts';
import type { WorkspacesService } from '../workspaces/service.ts';
import { genericPayload, post, slackPayload, teamsPayload, type Notice, type Outcome } from './delivery.ts';
import * as store from './store.ts';
import { DESTINATION_TYPES, type DeliveryResponse, type DestinationType, type NotificationConfiguration } from './store.ts';

export type { DeliveryResponse, DestinationType, NotificationConfiguration };

/** Every trigger go-tfe v1.90.0 knows; Hangar sends the `run:` ones (see triggerOf). */
export const TRIGGERS = [
  'run:created',
  'run:planning',
  'run:needs_attention',
  'run:applying',
  'run:completed',
  'run:errored',
  'assessment:drifted',
  'assessment:failed',
  'assessment:check_failure',
  'workspace:auto_destroy_reminder',
  'workspace:auto_destroy_run_results',
  'change_request:created',
] as const;

const MESSAGES: Record<string, string> = {
  'run:created': 'Run Created',
  'run:planning': 'Run Planning',
  'run:needs_attention': 'Run Needs Attention',
  'run:applying': 'Run Applying',
  'run:completed': 'Run Completed',
  'run:errored': 'Run Errored',
};

/** TFE's limit on one workspace's configurations (which also bounds the unpaginated list); teams get the same. */
export const MAX_PER_SUBSCRIBABLE = 20;
/** Tokens re-sealed per transaction by `hangar rotate-key`. */
const ROTATION_BATCH_SIZE = 100;
/** How many delivery responses a configuration keeps (and shows). */
export const KEPT_RESPONSES = 10;
/** Attempts per notification before it is given up. */
export const MAX_ATTEMPTS = 4;
/** Waits after the first, second and third failed attempt. */
const BACKOFF_MS = [5_000, 30_000, 120_000];
/** How long a claimed row is left alone: longer than one attempt can take. */
const LEASE_MS = 60_000;
const BATCH = 20;
/** A destination that cannot be sent to from Hangar: the outcome each of its deliveries records. */
const EMAIL_NOT_SENT = 'Not sent: Hangar has no mail server; email notifications are stored but never delivered';

export interface ConfigurationInput {
  name?: string;
  destinationType?: string;
  enabled?: boolean;
  url?: string | null;
  /** Undefined: unchanged; null or empty: no token. */
  token?: string | null;
  triggers?: string[];
  emailAddresses?: string[];
  /** Undefined on create: none. On update TFE (and go-tfe's tests) read an absent list as empty. */
  emailUserIds?: string[];
}

export interface ConfigurationView {
  configuration: NotificationConfiguration;
  userIds: string[];
  responses: DeliveryResponse[];
}

/** What an outbox row says about the run: the facts as they were at the status change. */
interface Subject {
  runId: string;
  runMessage: string;
  runCreatedAt: string;
  runCreatedBy: string | null;
  runStatus: string;
  runUpdatedAt: string;
  workspaceId: string;
}

/**
 * The trigger a run's new status fires, if any. `planned` and `policy_checked` need attention
 * only when the run waits for a confirmation (an auto-applied run moves on in the same
 * transaction); a soft-mandatory policy failure always does.
 */
export function triggerOf(run: Run): string | null {
  switch (run.status) {
    case 'pending':
      return 'run:created';
    case 'planning':
      return 'run:planning';
    case 'planned':
    case 'policy_checked':
      return run.autoApply ? null : 'run:needs_attention';
    case 'policy_override':
      return 'run:needs_attention';
    case 'applying':
      return 'run:applying';
    case 'applied':
    case 'planned_and_finished':
    case 'planned_and_saved':
      return 'run:completed';
    case 'errored':
      return 'run:errored';
    default:
      return null;
  }
}

const URL_REQUIRED: readonly DestinationType[] = ['generic', 'slack', 'microsoft-teams'];
const Url = HttpUrl('Url');

export function createNotificationConfigurationsService(deps: {
  database: Database;
  workspaces: WorkspacesService;
  runs: Pick<RunsService, 'onStatus'>;
  organizationLookup: OrganizationLookup;
  organizationMemberships: Pick<OrganizationMembershipsService, 'membersAmong'>;
  users: Pick<UsersService, 'findById'>;
  teams: Pick<TeamsService, 'find' | 'hold'>;
  keyring: Keyring | null;
}) {
  const { database, workspaces } = deps;
  const db = database.db;
  const keyring = () => loadedKeyring(deps.keyring);

  async function viewsOf(q: Queryable, configurations: readonly NotificationConfiguration[]): Promise<ConfigurationView[]> {
    const ids = configurations.map((c) => c.id);
    const [users, responses] = await Promise.all([store.usersOf(q, ids), store.responsesOf(q, ids, KEPT_RESPONSES)]);
    return configurations.map((configuration) => ({
      configuration,
      userIds: users.get(configuration.id) ?? [],
      responses: responses.get(configuration.id) ?? [],
    }));
  }

  /** A workspace's or a team's configurations: the organization, and the check for managing them. */
  interface Subscribable {
    kind: 'workspace' | 'team';
    id: string;
    orgId: string;
    orgName: string;
    workspace: { id: string; name: string } | null;
    /** Throws 403 unless the caller may manage the subscribable's notifications. */
    mayManage(): void;
  }

  /** The workspace, for a caller who may read it (404 otherwise). */
  async function ofWorkspace(caller: Caller, workspaceId: string): Promise<Subscribable> {
    const found = await workspaces.find(caller, { id: workspaceId });
    const { workspace, org } = found;
    return {
      kind: 'workspace',
      id: workspace.id,
      orgId: org.id,
      orgName: org.name,
      workspace: { id: workspace.id, name: workspace.name },
      mayManage: () => authorize(found, 'manage-notifications'),
    };
  }

  /** The team, for a caller who may see it (404 otherwise); managing its notifications is managing the team. */
  async function ofTeam(caller: Caller, teamId: string): Promise<Subscribable> {
    const found = await deps.teams.find(caller, teamId, 'read-team');
    return {
      kind: 'team',
      id: found.team.id,
      orgId: found.standing.organizationId,
      orgName: found.standing.organizationName,
      workspace: null,
      mayManage: () => authorize(found, 'update-team'),
    };
  }

  /** The configuration and what it belongs to, if the caller may read it; 404 otherwise. */
  async function find(caller: Caller, id: string): Promise<{ configuration: NotificationConfiguration; found: Subscribable }> {
    const configuration = hasPrefix(id, 'nc') ? await store.findConfiguration(db, id) : undefined;
    if (!configuration) throw errors.notFound();
    const found = configuration.workspaceId ? await ofWorkspace(caller, configuration.workspaceId) : await ofTeam(caller, configuration.teamId!);
    return { configuration, found };
  }

  async function list(found: Subscribable, page: Page | null): Promise<{ items: ConfigurationView[]; total: number }> {
    const { items, total } = await store.listConfigurations(db, { kind: found.kind, id: found.id }, page);
    return { items: await viewsOf(db, items), total };
  }

  async function create(found: Subscribable, input: ConfigurationInput): Promise<ConfigurationView> {
    found.mayManage();
    const type = input.destinationType as DestinationType;
    const state = {
      name: input.name,
      destinationType: input.destinationType,
      // An email configuration has no URL; anything sent is ignored.
      url: type === 'email' ? null : (input.url ?? null),
      triggers: [...new Set(input.triggers ?? [])],
      emailAddresses: [...new Set(input.emailAddresses ?? [])],
    };
    const userIds = [...new Set(input.emailUserIds ?? [])];
    const problems = await problemsOf(found.orgId, state, userIds);
    if (problems.length) throw errors.invalid(problems);
    const at = now();
    const id = newId('nc');
    const configuration: NotificationConfiguration = {
      id,
      workspaceId: found.kind === 'workspace' ? found.id : null,
      teamId: found.kind === 'team' ? found.id : null,
      name: state.name!,
      destinationType: type,
      enabled: input.enabled ?? false,
      url: state.url,
      encryptedToken: seal(id, input.token),
      triggers: state.triggers,
      emailAddresses: state.emailAddresses,
      createdAt: at,
      updatedAt: at,
    };
    await guarded(
      database.transaction(async (trx) => {
        // The owner's row is held while counting (PostgreSQL), so creates at once cannot pass the limit together.
        await (found.kind === 'workspace' ? workspaces.lock(trx, found.id) : deps.teams.hold(trx, found.id));
        if ((await store.countOf(trx, { kind: found.kind, id: found.id })) >= MAX_PER_SUBSCRIBABLE) {
          throw errors.invalidAttribute('/data', `A ${found.kind} can have at most ${MAX_PER_SUBSCRIBABLE} notification configurations`);
        }
        await store.insertConfiguration(trx, configuration);
        await store.replaceUsers(trx, id, userIds);
      }),
      // The workspace or team, or a user, was deleted a moment ago.
      { foreignKey: () => errors.notFound() },
    );
    return { configuration, userIds: userIds.sort(), responses: [] };
  }

  /** The 422 problems of the configuration a create or update would leave; the users, checked against the organization. */
  async function problemsOf(
    orgId: string,
    state: { name: string | undefined; destinationType: string | undefined; url: string | null; triggers: string[]; emailAddresses: string[] },
    emailUserIds: readonly string[],
  ): Promise<Problem[]> {
    const problems: Problem[] = [];
    if (state.name === undefined || state.name.trim() === '') problems.push({ pointer: '/data/attributes/name', detail: "Name can't be blank" });
    const type = state.destinationType;
    if (type === undefined) problems.push({ pointer: '/data/attributes/destination-type', detail: "Destination type can't be blank" });
    else if (!(DESTINATION_TYPES as readonly string[]).includes(type)) {
      problems.push({ pointer: '/data/attributes/destination-type', detail: `Destination type must be one of: ${DESTINATION_TYPES.join(', ')}` });
    }
    state.triggers.forEach((t, i) => {
      if (!(TRIGGERS as readonly string[]).includes(t))
        problems.push({ pointer: `/data/attributes/triggers/${i}`, detail: `Trigger "${t.slice(0, 100)}" is not a notification trigger` });
    });
    if (URL_REQUIRED.includes(type as DestinationType)) {
      if (!state.url) problems.push({ pointer: '/data/attributes/url', detail: "Url can't be blank" });
      else {
        const bad = Url.problem(state.url);
        if (bad) problems.push({ pointer: '/data/attributes/url', detail: bad });
      }
    }
    state.emailAddresses.forEach((a, i) => {
      const bad = Email.problem(a);
      if (bad) problems.push({ pointer: `/data/attributes/email-addresses/${i}`, detail: bad });
    });
    if (emailUserIds.length > 0) {
      const members = await deps.organizationMemberships.membersAmong(orgId, emailUserIds);
      emailUserIds.forEach((id, i) => {
        if (!members.has(id))
          problems.push({ pointer: `/data/relationships/users/data/${i}/id`, detail: `User ${id.slice(0, 64)} is not a member of this organization` });
      });
    }
    return problems;
  }

  // Sealed as sensitive variables are, the configuration id as associated data.
  const sealing = sensitiveValues(keyring, 'notification token');
  const seal = (id: string, token: string | null | undefined) => (token ? keyring().encrypt(token, id) : null);
  const open = (c: NotificationConfiguration) => (c.encryptedToken ? sealing.open(c.id, c.encryptedToken) : null);

  /** Sends `notice` to the configuration's destination (never for email) and says how it went. */
  async function send(c: NotificationConfiguration, notice: Notice): Promise<Outcome> {
    const url = c.url ?? '';
    let token: string | null;
    try {
      token = c.destinationType === 'generic' ? open(c) : null;
    } catch {
      // Its key was removed from HANGAR_ENCRYPTION_KEY before `hangar rotate-key` re-sealed it.
      return { url, body: 'Not sent: the token cannot be decrypted with the configured keys; set it again', code: '', headers: {}, successful: false };
    }
    switch (c.destinationType) {
      case 'email':
        return { url: '', body: EMAIL_NOT_SENT, code: '', headers: {}, successful: false };
      case 'slack':
        return post(url, slackPayload(notice), null);
      case 'microsoft-teams':
        return post(url, teamsPayload(notice), null);
      default:
        return post(url, genericPayload(notice), token);
    }
  }

  /**
   * Records the outcome among the configuration's responses and, for an outbox row, deletes the
   * row in the same transaction (a crash between the two would send it again). A configuration
   * deleted meanwhile took its responses with it: the row is only deleted.
   */
  async function record(configurationId: string, outcome: Outcome, deliveryId?: string): Promise<void> {
    const response: DeliveryResponse = { id: newId('ncr'), configurationId, ...outcome, createdAt: now() };
    try {
      await guarded(
        database.transaction(async (trx) => {
          await store.recordResponse(trx, response, KEPT_RESPONSES);
          if (deliveryId) await store.deleteDelivery(trx, deliveryId);
        }),
        { foreignKey: () => errors.notFound() },
      );
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 404)) throw e;
      if (deliveryId) await store.deleteDelivery(db, deliveryId);
    }
  }

  // The outbox rows of a run's status change, written in its transaction.
  deps.runs.onStatus(async (q, run) => {
    const trigger = triggerOf(run);
    if (!trigger) return;
    const subscribed = (await store.enabledOfWorkspace(q, run.workspaceId)).filter((c) => c.triggers.includes(trigger));
    if (subscribed.length === 0) return;
    const at = now();
    const subject: Subject = {
      runId: run.id,
      runMessage: run.message,
      runCreatedAt: run.createdAt,
      runCreatedBy: run.createdByUserId,
      runStatus: run.status,
      runUpdatedAt: at,
      workspaceId: run.workspaceId,
    };
    await store.insertDeliveries(
      q,
      subscribed.map((c) => ({ id: newId('ncd'), configurationId: c.id, trigger, subject, attempts: 0, nextAttemptAt: at, createdAt: at })),
    );
  });

  /** The notice of an outbox row; null when its workspace is gone. */
  async function noticeOf(c: NotificationConfiguration, trigger: string, s: Subject, baseUrl: string): Promise<Notice | null> {
    const [workspace] = await workspaces.rows([s.workspaceId]);
    if (!workspace) return null;
    const [org, creator] = await Promise.all([
      deps.organizationLookup.organizationById(workspace.organizationId),
      s.runCreatedBy ? deps.users.findById(s.runCreatedBy) : Promise.resolve(undefined),
    ]);
    const orgName = org?.name ?? '';
    return {
      configurationId: c.id,
      configurationName: c.name,
      trigger,
      message: MESSAGES[trigger] ?? trigger,
      run: {
        id: s.runId,
        url: `${baseUrl}/app/${encodeURIComponent(orgName)}/workspaces/${encodeURIComponent(workspace.name)}/runs/${s.runId}`,
        message: s.runMessage,
        createdAt: s.runCreatedAt,
        createdBy: creator?.username ?? null,
        status: s.runStatus,
        updatedAt: s.runUpdatedAt,
        updatedBy: null,
      },
      workspace: { id: workspace.id, name: workspace.name },
      organizationName: orgName,
    };
  }

  /** One claimed row: sent, then deleted (recorded) or put back for later (failed, attempts left). */
  async function deliver(d: store.Delivery, attempt: number, baseUrl: string): Promise<void> {
    const c = await store.findConfiguration(db, d.configurationId);
    const notice = c?.enabled ? await noticeOf(c, d.trigger, d.subject as Subject, baseUrl) : null;
    // Disabled or deleted since, or its workspace gone: nothing to send.
    if (!c || !notice) return store.deleteDelivery(db, d.id);
    const outcome = await send(c, notice);
    if (!outcome.successful && attempt < MAX_ATTEMPTS && c.destinationType !== 'email') {
      const wait = BACKOFF_MS[Math.min(attempt - 1, BACKOFF_MS.length - 1)]!;
      return store.rescheduleDelivery(db, d.id, new Date(Date.now() + wait).toISOString());
    }
    await record(c.id, outcome, d.id);
  }

  /**
   * One pass of the deliverer: claims the due outbox rows and sends them, each at most once at a
   * time across every instance. Returns how many it sent (or gave up, or dropped).
   */
  async function deliverDue(baseUrl: string): Promise<number> {
    const claimed = await database.transaction(async (trx) => {
      const due = await store.dueDeliveries(trx, now(), BATCH);
      const lease = new Date(Date.now() + LEASE_MS).toISOString();
      const mine: Array<{ delivery: store.Delivery; attempt: number }> = [];
      for (const d of due) if (await store.claimDelivery(trx, d, lease)) mine.push({ delivery: d, attempt: d.attempts + 1 });
      return mine;
    });
    await Promise.all(claimed.map(({ delivery, attempt }) => deliver(delivery, attempt, baseUrl)));
    return claimed.length;
  }

  return {
    /** A page of the workspace's configurations (every one when `page` is null), and how many there are. */
    listOfWorkspace: async (caller: Caller, workspaceId: string, page: Page | null) => list(await ofWorkspace(caller, workspaceId), page),
    /** The same for a team's. */
    listOfTeam: async (caller: Caller, teamId: string, page: Page | null) => list(await ofTeam(caller, teamId), page),

    async show(caller: Caller, id: string): Promise<ConfigurationView> {
      return (await viewsOf(db, [(await find(caller, id)).configuration]))[0]!;
    },

    createForWorkspace: async (caller: Caller, workspaceId: string, input: ConfigurationInput) => create(await ofWorkspace(caller, workspaceId), input),
    createForTeam: async (caller: Caller, teamId: string, input: ConfigurationInput) => create(await ofTeam(caller, teamId), input),

    async update(caller: Caller, id: string, input: ConfigurationInput): Promise<ConfigurationView> {
      const { configuration: was, found } = await find(caller, id);
      found.mayManage();
      const state = {
        name: input.name ?? was.name,
        destinationType: was.destinationType,
        url: was.destinationType === 'email' ? null : input.url === undefined ? was.url : input.url,
        triggers: input.triggers === undefined ? was.triggers : [...new Set(input.triggers)],
        emailAddresses: input.emailAddresses === undefined ? was.emailAddresses : [...new Set(input.emailAddresses)],
      };
      const userIds = [...new Set(input.emailUserIds ?? [])];
      const problems = await problemsOf(found.orgId, state, userIds);
      if (problems.length) throw errors.invalid(problems);
      const next: NotificationConfiguration = {
        ...was,
        ...state,
        enabled: input.enabled ?? was.enabled,
        encryptedToken: input.token === undefined ? was.encryptedToken : seal(was.id, input.token),
        updatedAt: now(),
      };
      await guarded(
        database.transaction(async (trx) => {
          await store.updateConfiguration(trx, was.id, store.patchConfiguration(next));
          await store.replaceUsers(trx, was.id, userIds);
        }),
        { foreignKey: () => errors.notFound() },
      );
      return (await viewsOf(db, [next]))[0]!;
    },

    async destroy(caller: Caller, id: string): Promise<void> {
      const { configuration, found } = await find(caller, id);
      found.mayManage();
      await store.deleteConfiguration(db, configuration.id);
    },

    /** Sends a verification notice now (enabled or not, as TFE) and answers with its response recorded. */
    async verify(caller: Caller, id: string): Promise<ConfigurationView> {
      const { configuration, found } = await find(caller, id);
      found.mayManage();
      const outcome = await send(configuration, {
        configurationId: configuration.id,
        configurationName: configuration.name,
        trigger: 'verification',
        message: `Verification of ${configuration.name}`,
        run: null,
        workspace: found.workspace,
        organizationName: found.orgName,
      });
      await record(configuration.id, outcome);
      return (await viewsOf(db, [configuration]))[0]!;
    },

    deliverDue,

    /** `hangar rotate-key`: re-seals every token sealed with an older key under the first one; how many. */
    rotateEncryption: (options: { batchSize?: number } = {}): Promise<number> =>
      sealing.rotate(database, { stale: store.staleTokens, replace: store.replaceToken }, options.batchSize ?? ROTATION_BATCH_SIZE),

    /** How many notifications wait in the outbox. */
    pending: () => store.pendingDeliveries(db),

    /**
     * The background deliverer: a pass every `pollMs` (sooner after a pass that found work), until
     * `stop`, which waits for the pass in hand.
     */
    startDeliverer(options: { baseUrl: string; pollMs?: number; onError?: (e: unknown) => void }): { stop(): Promise<void> } {
      let stopping = false;
      let wake: (() => void) | null = null;
      const loop = (async () => {
        while (!stopping) {
          let busy = false;
          try {
            busy = (await deliverDue(options.baseUrl)) > 0;
          } catch (e) {
            options.onError?.(e);
          }
          if (busy) continue;
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, options.pollMs ?? 1_000).unref();
          });
        }
      })();
      return {
        async stop() {
          stopping = true;
          wake?.();
          await loop;
        },
      };
    },
  };
}

export type NotificationConfigurationsService = ReturnType<typeof createNotificationConfigurationsService>;
