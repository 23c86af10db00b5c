import { archiveUploadRoute, type Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import {
  Archive,
  ConfigurationVersionDocument,
  ConfigurationVersionListDocument,
  ConfigurationVersionParams,
  CreateConfigurationVersionBody,
  ListConfigurationVersionsQuery,
} from './schemas.ts';
import { configurationVersionResource } from './serialize.ts';
import type { ConfigurationVersionsService } from './service.ts';

/** Where upload URLs point, outside /api/v2 (like TFE's archivist). */
export const UPLOAD_PREFIX = '/_archivist/v1/object';

const tags = ['Configuration versions'];

export async function configurationVersionsRoutes(app: Api, { configurationVersions }: { configurationVersions: ConfigurationVersionsService }): Promise<void> {
  app.post(
    '/workspaces/:workspace_id/configuration-versions',
    {
      schema: {
        summary: 'Create a configuration version and its upload URL',
        tags,
        params: WorkspaceParams,
        body: CreateConfigurationVersionBody,
        response: responses({ 201: ConfigurationVersionDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes ?? {};
      const { cv, uploadObject } = await configurationVersions.create(request.caller, request.params.workspace_id, {
        autoQueueRuns: a['auto-queue-runs'],
        speculative: a.speculative,
        provisional: a.provisional,
      });
      const url = new URL(`${UPLOAD_PREFIX}/${uploadObject}`, absoluteUrl(request, app.config.baseUrl)).toString();
      return reply.code(201).send({ data: configurationVersionResource(cv, url) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/configuration-versions',
    {
      schema: {
        summary: "List a workspace's configuration versions",
        tags,
        params: WorkspaceParams,
        querystring: ListConfigurationVersionsQuery,
        response: responses({ 200: ConfigurationVersionListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await configurationVersions.list(request.caller, request.params.workspace_id, page);
      return { data: items.map((cv) => configurationVersionResource(cv)), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.get(
    '/configuration-versions/:configuration_version_id/download',
    {
      schema: {
        summary: "Download an uploaded configuration version's tarball",
        tags,
        params: ConfigurationVersionParams,
        response: responses({ 200: Archive }),
      },
    },
    async (request, reply) => {
      const bytes = await configurationVersions.download(request.caller, request.params.configuration_version_id);
      return reply
        .code(200)
        .type('application/octet-stream')
        .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    },
  );

  app.post(
    '/configuration-versions/:configuration_version_id/actions/archive',
    {
      schema: {
        summary: 'Archive a configuration version (its tarball is dropped); never the current one',
        tags,
        params: ConfigurationVersionParams,
        response: responses({ 202: NoContent }),
      },
    },
    async (request, reply) => {
      await configurationVersions.archiveVersion(request.caller, request.params.configuration_version_id);
      return reply.code(202).send();
    },
  );

  app.get(
    '/configuration-versions/:configuration_version_id',
    {
      schema: { summary: 'Show a configuration version', tags, params: ConfigurationVersionParams, response: responses({ 200: ConfigurationVersionDocument }) },
    },
    async (request) => {
      return { data: configurationVersionResource(await configurationVersions.show(request.caller, request.params.configuration_version_id)) };
    },
  );
}

/** A configuration version's upload URL (the tarball; the URL is the credential), outside /api/v2. */
export async function uploadRoutes(app: Api, { configurationVersions }: { configurationVersions: ConfigurationVersionsService }): Promise<void> {
  archiveUploadRoute(app, {
    prefix: UPLOAD_PREFIX,
    summary: "Upload a configuration version's tarball (the URL is the credential; no token)",
    tags,
    maxObjectLength: 128,
    check: (object) => configurationVersions.checkUploadUrl(object),
    upload: (object, bytes) => configurationVersions.upload(object, bytes),
  });
}
