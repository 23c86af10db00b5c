import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import { ConfigurationVersionParams, CreateConfigurationVersionBody, ListConfigurationVersionsQuery, UploadParams } from './schemas.ts';
import { configurationVersionResource } from './serialize.ts';
import { MAX_ARCHIVE_BYTES, type ConfigurationVersionsService } from './service.ts';

/** Where upload URLs point, outside /api/v2 (like TFE's archivist). */
export const UPLOAD_PREFIX = '/_archivist/v1/object';

export async function configurationVersionsRoutes(app: Api, { configurationVersions }: { configurationVersions: ConfigurationVersionsService }): Promise<void> {
  app.post(
    '/workspaces/:workspace_id/configuration-versions',
    { schema: { params: WorkspaceParams, body: CreateConfigurationVersionBody } },
    async (request, reply) => {
      const a = request.body.data.attributes ?? {};
      const { cv, uploadSecret } = await configurationVersions.create(request.caller, request.params.workspace_id, {
        autoQueueRuns: a['auto-queue-runs'],
        speculative: a.speculative,
        provisional: a.provisional,
      });
      const url = new URL(`${UPLOAD_PREFIX}/${uploadSecret}`, absoluteUrl(request, app.config.baseUrl)).toString();
      return reply.code(201).send({ data: configurationVersionResource(cv, url) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/configuration-versions',
    { schema: { params: WorkspaceParams, querystring: ListConfigurationVersionsQuery } },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await configurationVersions.list(request.caller, request.params.workspace_id, page);
      return { data: items.map((cv) => configurationVersionResource(cv)), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.get('/configuration-versions/:configuration_version_id', { schema: { params: ConfigurationVersionParams } }, async (request) => {
    return { data: configurationVersionResource(await configurationVersions.show(request.caller, request.params.configuration_version_id)) };
  });
}

/**
 * The upload URL: no Authorization (the URL is the credential), any body as bytes, up to
 * MAX_ARCHIVE_BYTES. Registered in a scope of its own, outside /api/v2.
 */
export async function uploadRoutes(app: Api, { configurationVersions }: { configurationVersions: ConfigurationVersionsService }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ARCHIVE_BYTES }, (_request, body, done) => done(null, body));
  app.put(`${UPLOAD_PREFIX}/:secret`, { bodyLimit: MAX_ARCHIVE_BYTES, schema: { params: UploadParams } }, async (request, reply) => {
    const body = request.body;
    await configurationVersions.upload(request.params.secret, body instanceof Uint8Array ? body : new Uint8Array());
    return reply.code(200).send();
  });
}
