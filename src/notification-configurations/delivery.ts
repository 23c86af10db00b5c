// What a notification looks like on the wire and how it is sent: TFE's generic webhook payload
// (version 1) signed with HMAC-SHA512 when the configuration has a token, simple Slack and
// Microsoft Teams messages, and one HTTP POST with a time limit, no redirects followed and the
// answer's body read only up to a cap (it is kept, and shown to whoever can read the
// configuration). Nothing here logs, and no outcome carries the token or the signature.
import { createHmac } from 'node:crypto';

export const SEND_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is kept. */
export const BODY_CAP_BYTES = 4096;

/** A notification's facts, whichever destination renders them. */
export interface Notice {
  configurationId: string;
  configurationName: string;
  /** `verification`, or one of the triggers. */
  trigger: string;
  message: string;
  run: {
    id: string;
    url: string;
    message: string;
    createdAt: string;
    createdBy: string | null;
    status: string;
    updatedAt: string;
    updatedBy: string | null;
  } | null;
  workspace: { id: string; name: string } | null;
  organizationName: string | null;
}

/** TFE's generic payload (payload_version 1). */
export function genericPayload(n: Notice): Record<string, unknown> {
  return {
    payload_version: 1,
    notification_configuration_id: n.configurationId,
    run_url: n.run?.url ?? null,
    run_id: n.run?.id ?? null,
    run_message: n.run?.message ?? null,
    run_created_at: n.run?.createdAt ?? null,
    run_created_by: n.run?.createdBy ?? null,
    workspace_id: n.workspace?.id ?? null,
    workspace_name: n.workspace?.name ?? null,
    organization_name: n.organizationName,
    notifications: [
      {
        message: n.message,
        trigger: n.trigger,
        run_status: n.run?.status ?? null,
        run_updated_at: n.run?.updatedAt ?? null,
        run_updated_by: n.run?.updatedBy ?? null,
      },
    ],
  };
}

function headline(n: Notice): string {
  if (!n.run || !n.workspace) return `${n.message}: Hangar can reach this destination`;
  return `${n.message}: run ${n.run.id} in ${n.organizationName}/${n.workspace.name} is ${n.run.status}`;
}

/** Slack's incoming-webhook message: one line of text and an attachment linking the run. */
export function slackPayload(n: Notice): Record<string, unknown> {
  return {
    text: headline(n),
    attachments: n.run ? [{ fallback: headline(n), title: n.run.message || n.run.id, title_link: n.run.url, text: `${n.trigger} (${n.run.status})` }] : [],
  };
}

/** A Microsoft Teams MessageCard. */
export function teamsPayload(n: Notice): Record<string, unknown> {
  return {
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: n.message,
    title: n.message,
    text: headline(n),
    ...(n.run ? { potentialAction: [{ '@type': 'OpenUri', name: 'View run', targets: [{ os: 'default', uri: n.run.url }] }] } : {}),
  };
}

/** The hex HMAC-SHA512 of `body` keyed by the token: TFE's X-TFE-Notification-Signature. */
export function signature(token: string, body: string): string {
  return createHmac('sha512', token).update(body).digest('hex');
}

/** What one attempt gave, as a delivery response records it. */
export interface Outcome {
  url: string;
  body: string;
  code: string;
  headers: Record<string, string[]>;
  successful: boolean;
}

async function cappedText(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < BODY_CAP_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // The rest is not wanted: stop the download (a huge or endless answer costs nothing more).
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, BODY_CAP_BYTES).toString('utf8');
}

/** Why the request did not get an answer, in words that carry nothing of the request itself. */
function failureText(e: unknown): string {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return `No answer within ${SEND_TIMEOUT_MS / 1000} seconds`;
  const cause = e instanceof Error ? (e.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? `The request failed: ${cause.code}` : 'The request failed';
}

/** POSTs `payload` as JSON to `url`, signed when `token` is set. Never throws. */
export async function post(url: string, payload: Record<string, unknown>, token: string | null): Promise<Outcome> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'Hangar-Notifications' };
  if (token) headers['x-tfe-notification-signature'] = signature(token, body);
  try {
    const res = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
    const answered: Record<string, string[]> = {};
    res.headers.forEach((value, name) => {
      (answered[name] ??= []).push(value);
    });
    const text = await cappedText(res).catch(() => '');
    return { url, body: text, code: String(res.status), headers: answered, successful: res.status >= 200 && res.status < 300 };
  } catch (e) {
    return { url, body: failureText(e), code: '', headers: {}, successful: false };
  }
}
