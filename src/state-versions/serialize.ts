import { toOne } from '../jsonapi/relationships.ts';
import type { BlobKind, ListedVersionView, OutputView, WorkspaceResourceView } from './service.ts';

const json = (text: string | null) => (text === null ? null : JSON.parse(text));

/** `origin` makes the download and upload URLs absolute, as go-tfe and Terraform need them. */
export function stateVersionResource(view: ListedVersionView, origin: string) {
  const v = view.version;
  return resource(view, origin, { resources: json(v.resources) ?? [], providers: json(v.providers) ?? {}, modules: json(v.modules) ?? {} });
}

/**
 * A page of versions as the text of its document: `JSON.stringify({ data: items.map(stateVersionResource), ...rest })`
 * in meaning, with each version's stored JSON (resources, providers, modules) written in as it
 * is stored instead of parsed and stringified again, which was most of a page's JSON work. That
 * text is Hangar's own: JSON.stringify wrote it when the state arrived (service.ts).
 */
export function stateVersionPageJson(items: readonly ListedVersionView[], origin: string, rest: object): string {
  const more = JSON.stringify(rest);
  return `{"data":[${items.map((view) => stateVersionJson(view, origin)).join(',')}]${more === '{}' ? '}' : `,${more.slice(1)}`}`;
}

function stateVersionJson(view: ListedVersionView, origin: string): string {
  const v = view.version;
  // The resource's last member is its attributes: the stored JSON closes them.
  const text = JSON.stringify(resource(view, origin, {}));
  return `${text.slice(0, -2)},"resources":${v.resources ?? '[]'},"providers":${v.providers ?? '{}'},"modules":${v.modules ?? '{}'}}}`;
}

/** The resource; its attributes come last and end with `stored` (the version's stored JSON, as the caller renders it). */
function resource({ version: v, outputIds, uploadCredentials }: ListedVersionView, origin: string, stored: Record<string, unknown>) {
  const base = `${origin}/api/v2/state-versions/${v.id}`;
  // The credential's characters need no escaping in a query; the request log redacts `credential`.
  const upload = (kind: BlobKind) => (uploadCredentials ? `${base}/upload/${kind}?credential=${uploadCredentials[kind]}` : null);
  const finalized = v.status === 'finalized';
  return {
    id: v.id,
    type: 'state-versions',
    relationships: {
      workspace: toOne('workspaces', v.workspaceId),
      ...(v.createdBy ? { 'created-by': toOne('users', v.createdBy) } : {}),
      outputs: { data: outputIds.map((id) => ({ id, type: 'state-version-outputs' })) },
    },
    links: { self: `/api/v2/state-versions/${v.id}` },
    attributes: {
      'created-at': v.createdAt,
      serial: v.serial,
      status: v.status,
      size: v.stateSize,
      'state-version': v.stateFormatVersion,
      'terraform-version': v.terraformVersion,
      'resources-processed': finalized,
      'billable-rum-count': v.billableRumCount,
      intermediate: false,
      'vcs-commit-sha': null,
      'vcs-commit-url': null,
      'hosted-state-download-url': finalized ? `${base}/download` : null,
      'hosted-json-state-download-url': v.jsonStateUploaded ? `${base}/json-download` : null,
      'hosted-state-upload-url': upload('state'),
      'hosted-json-state-upload-url': upload('json-state'),
      ...stored,
    },
  };
}

/** `value` undefined: hidden (sensitive, in a list) and shown as null. */
export function outputResource({ output: o, value }: OutputView) {
  return {
    id: o.id,
    type: 'state-version-outputs',
    attributes: {
      name: o.name,
      sensitive: o.sensitive,
      type: o.type,
      value: value === undefined ? null : value,
      'detailed-type': json(o.detailedType),
    },
    links: { self: `/api/v2/state-version-outputs/${o.id}` },
  };
}

/** The same output as a workspace shows it (`include=outputs` on a workspace). */
export function workspaceOutputResource({ output: o, value }: OutputView) {
  return {
    id: o.id,
    type: 'workspace-outputs',
    attributes: { name: o.name, sensitive: o.sensitive, 'output-type': o.type, value: value === undefined ? null : value },
    links: { self: `/api/v2/workspace-outputs/${o.id}` },
  };
}

/** One of a workspace's resources: where it is and when it changed, never its attribute values. */
export function workspaceResourceResource({ id, instance: i }: WorkspaceResourceView) {
  return {
    id,
    type: 'resources',
    attributes: {
      address: i.address,
      name: i.name,
      'created-at': i.createdAt,
      'updated-at': i.updatedAt,
      module: i.module,
      provider: i.provider,
      'provider-type': i.type,
      'modified-by-state-version-id': i.modifiedBy,
      'name-index': i.index === null ? null : String(i.index),
    },
  };
}
