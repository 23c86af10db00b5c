// State files and state versions for tests: Terraform's format 4, as `terraform apply` writes it.
import { createHash } from 'node:crypto';
import type { TestContext } from './harness.ts';

export interface StateOptions {
  serial?: number;
  lineage?: string;
  outputs?: Record<string, { value: unknown; type: unknown; sensitive?: boolean }>;
  resources?: number;
}

export function stateFile(o: StateOptions = {}): Buffer {
  const resources = Array.from({ length: o.resources ?? 1 }, (_, i) => ({
    mode: 'managed',
    type: 'aws_s3_bucket',
    name: `b${i}`,
    provider: 'provider["registry.terraform.io/hashicorp/aws"]',
    instances: [{ schema_version: 0, attributes: { id: `bucket-${i}` } }],
  }));
  const doc = {
    version: 4,
    terraform_version: '1.11.4',
    serial: o.serial ?? 1,
    lineage: o.lineage ?? '8094ef40-1dbd-95cd-1f60-bb25d84d883b',
    outputs: o.outputs ?? {
      greeting: { value: 'hello', type: 'string' },
      password: { value: 'hunter2-secret-value', type: 'string', sensitive: true },
      zones: { value: ['a', 'b'], type: ['list', 'string'] },
    },
    resources,
    check_results: null,
  };
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n');
}

export const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

export function versionBody(state: Buffer | null, serial: number, extra: Record<string, unknown> = {}) {
  return {
    data: {
      type: 'state-versions',
      attributes: { serial, md5: md5(state ?? Buffer.from('')), ...(state ? { state: state.toString('base64') } : {}), ...extra },
    },
  };
}

export async function lock(ctx: TestContext, workspaceId: string, token: string) {
  const res = await ctx.post(`/api/v2/workspaces/${workspaceId}/actions/lock`, token, { data: { type: '' } });
  if (res.status !== 200) throw new Error(`lock failed: ${res.status} ${res.raw}`);
}

export async function unlock(ctx: TestContext, workspaceId: string, token: string) {
  const res = await ctx.request('POST', `/api/v2/workspaces/${workspaceId}/actions/unlock`, { token, contentType: 'application/vnd.api+json' });
  if (res.status !== 200) throw new Error(`unlock failed: ${res.status} ${res.raw}`);
}

/** Locks, creates a finalized version from `state`, unlocks; returns the version resource. */
export async function createStateVersion(ctx: TestContext, workspaceId: string, token: string, state = stateFile(), serial = 1) {
  await lock(ctx, workspaceId, token);
  const res = await ctx.post(`/api/v2/workspaces/${workspaceId}/state-versions`, token, versionBody(state, serial));
  await unlock(ctx, workspaceId, token);
  if (res.status !== 201) throw new Error(`state version create failed: ${res.status} ${res.raw}`);
  return res.body.data as { id: string; attributes: Record<string, any>; relationships: Record<string, any> };
}

/** PUTs raw bytes to an upload URL the way go-tfe does: no Authorization header. */
/** A PUT to an upload URL; `contentType` null sends none. */
export async function put(ctx: TestContext, absoluteUrl: string, bytes: Buffer, contentType: string | null = 'application/octet-stream') {
  const url = new URL(absoluteUrl);
  const res = await ctx.app.inject({
    method: 'PUT',
    url: url.pathname + url.search,
    headers: contentType === null ? {} : { 'content-type': contentType },
    payload: bytes,
  });
  return { status: res.statusCode, headers: res.headers, raw: res.body, body: res.body ? JSON.parse(res.body) : undefined };
}
