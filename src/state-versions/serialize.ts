import { toOne } from '../jsonapi/relationships.ts';
import type { BlobKind, ListedVersionView, OutputView } from './service.ts';

const json = (text: string | null) => (text === null ? null : JSON.parse(text));

/** `origin` makes the download and upload URLs absolute, as go-tfe and Terraform need them. */
export function stateVersionResource({ version: v, outputIds, uploadCredentials }: ListedVersionView, origin: string) {
  const base = `${origin}/api/v2/state-versions/${v.id}`;
  // The credential's characters need no escaping in a query; the request log redacts `credential`.
  const upload = (kind: BlobKind) => (uploadCredentials ? `${base}/upload/${kind}?credential=${uploadCredentials[kind]}` : null);
  const finalized = v.status === 'finalized';
  return {
    id: v.id,
    type: 'state-versions',
    attributes: {
      'created-at': v.createdAt,
      serial: v.serial,
      status: v.status,
      size: v.stateSize,
      'state-version': v.stateFormatVersion,
      'terraform-version': v.terraformVersion,
      'resources-processed': finalized,
      resources: json(v.resources) ?? [],
      providers: json(v.providers) ?? {},
      modules: json(v.modules) ?? {},
      'billable-rum-count': v.billableRumCount,
      intermediate: false,
      'vcs-commit-sha': null,
      'vcs-commit-url': null,
      'hosted-state-download-url': finalized ? `${base}/download` : null,
      'hosted-json-state-download-url': v.jsonStateUploaded ? `${base}/json-download` : null,
      'hosted-state-upload-url': upload('state'),
      'hosted-json-state-upload-url': upload('json-state'),
    },
    relationships: {
      workspace: toOne('workspaces', v.workspaceId),
      ...(v.createdBy ? { 'created-by': toOne('users', v.createdBy) } : {}),
      outputs: { data: outputIds.map((id) => ({ id, type: 'state-version-outputs' })) },
    },
    links: { self: `/api/v2/state-versions/${v.id}` },
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
