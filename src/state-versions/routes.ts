import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage, wantsPage } from '../jsonapi/pagination.ts';
import { includes } from '../jsonapi/query.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { WorkspaceParams } from '../workspaces/schemas.ts';
import {
  CreateStateVersionBody,
  IncludeQuery,
  ListStateVersionsQuery,
  OutputDocument,
  OutputListDocument,
  OutputParams,
  OutputsQuery,
  STATE_VERSION_INCLUDES,
  StateBytes,
  StateVersionDocument,
  StateVersionListDocument,
  StateVersionParams,
  UploadParams,
  UploadQuery,
  WorkspaceResourceListDocument,
  WorkspaceResourcesQuery,
} from './schemas.ts';
import { outputResource, stateVersionPageJson, stateVersionResource, workspaceResourceResource } from './serialize.ts';
import { MAX_STATE_BYTES, type StateVersionsService, type StateVersionView } from './service.ts';

const tags = ['State versions'];

/** Room for the state and the JSON state, base64 (4/3 as large), and the rest of the document. */
const CREATE_BODY_LIMIT = Math.ceil(MAX_STATE_BYTES / 3) * 4 * 2 + 1024 * 1024;

export async function stateVersionsRoutes(app: Api, { stateVersions }: { stateVersions: StateVersionsService }): Promise<void> {
  const origin = (request: FastifyRequest) => absoluteUrl(request, app.config.baseUrl).origin;

  /** The document for one version, with its outputs in `included` when asked (sensitive values null). */
  async function document(request: FastifyRequest, view: StateVersionView, include: string | undefined) {
    const wanted = includes(include, STATE_VERSION_INCLUDES);
    const data = stateVersionResource(view, origin(request));
    if (!wanted.includes('outputs')) return { data };
    const outputs = await stateVersions.outputsOfVersions([view.version.id]);
    return { data, included: outputs.map(outputResource) };
  }

  app.post(
    '/workspaces/:workspace_id/state-versions',
    {
      schema: {
        summary: 'Create a state version (the caller must hold the lock)',
        tags,
        params: WorkspaceParams,
        body: CreateStateVersionBody,
        response: responses({ 201: StateVersionDocument }),
      },
      bodyLimit: CREATE_BODY_LIMIT,
      // Authorized before the body is read: nobody who may not write the state gets Hangar to buffer and parse it.
      preParsing: async (request) => {
        await stateVersions.authorizeWrite(request.caller, (request.params as { workspace_id: string }).workspace_id);
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const view = await stateVersions.create(request.caller, request.params.workspace_id, {
        serial: a.serial,
        md5: a.md5,
        lineage: a.lineage,
        state: a.state,
        jsonState: a['json-state'],
        force: a.force,
      });
      return reply.code(201).send({ data: stateVersionResource(view, origin(request)) });
    },
  );

  app.get(
    '/workspaces/:workspace_id/current-state-version',
    {
      schema: {
        summary: "Show a workspace's current state version",
        tags,
        params: WorkspaceParams,
        querystring: IncludeQuery,
        response: responses({ 200: StateVersionDocument }),
      },
    },
    async (request) => {
      return document(request, await stateVersions.current(request.caller, request.params.workspace_id), request.query.include);
    },
  );

  app.get(
    '/state-versions',
    {
      schema: {
        summary: "List a workspace's state versions",
        tags,
        querystring: ListStateVersionsQuery,
        response: responses({ 200: StateVersionListDocument }),
      },
    },
    async (request) => {
      const q = request.query;
      const page = parsePage(q);
      const { items, total } = await stateVersions.list(request.caller, q['filter[organization][name]'], q['filter[workspace][name]'], page);
      const url = absoluteUrl(request, app.config.baseUrl);
      // Sent as text: the versions' stored JSON goes in without a parse (serialize.ts).
      return stateVersionPageJson(items, url.origin, envelope(url, page, total));
    },
  );

  app.get(
    '/state-versions/:state_version_id',
    {
      schema: {
        summary: 'Show a state version',
        tags,
        params: StateVersionParams,
        querystring: IncludeQuery,
        response: responses({ 200: StateVersionDocument }),
      },
    },
    async (request) => {
      return document(request, await stateVersions.show(request.caller, request.params.state_version_id), request.query.include);
    },
  );

  // The bytes as they were uploaded: the md5 Terraform computes must match.
  for (const [path, kind] of [
    ['/state-versions/:state_version_id/download', 'state'],
    ['/state-versions/:state_version_id/json-download', 'json-state'],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          summary: `Download the ${kind === 'state' ? 'state' : 'JSON state'} of a state version`,
          tags,
          params: StateVersionParams,
          response: responses({ 200: StateBytes }),
        },
      },
      async (request, reply) => {
        const bytes = await stateVersions.download(request.caller, request.params.state_version_id, kind);
        return reply.type('application/json').header('cache-control', 'no-store').send(bytes);
      },
    );
  }

  app.get(
    '/state-versions/:state_version_id/outputs',
    {
      schema: {
        summary: "List a state version's outputs",
        tags,
        params: StateVersionParams,
        querystring: OutputsQuery,
        response: responses({ 200: OutputListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await stateVersions.outputs(request.caller, request.params.state_version_id, page);
      return { data: items.map(outputResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  // Terraform reads every output from one response: the whole list unless a page is asked for.
  app.get(
    '/workspaces/:workspace_id/current-state-version-outputs',
    {
      schema: {
        summary: "List the outputs of a workspace's current state (sensitive values null)",
        tags,
        params: WorkspaceParams,
        querystring: OutputsQuery,
        response: responses({ 200: OutputListDocument }),
      },
    },
    async (request) => {
      const all = await stateVersions.currentOutputs(request.caller, request.params.workspace_id);
      const page = wantsPage(request.query) ? parsePage(request.query) : { number: 1, size: Math.max(all.length, 1), offset: 0 };
      const items = all.slice(page.offset, page.offset + page.size);
      return { data: items.map(outputResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, all.length) };
    },
  );

  app.get(
    '/workspaces/:workspace_id/resources',
    {
      schema: {
        summary: "List a workspace's resources: the managed resource instances of its current state",
        tags,
        params: WorkspaceParams,
        querystring: WorkspaceResourcesQuery,
        response: responses({ 200: WorkspaceResourceListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total } = await stateVersions.resources(request.caller, request.params.workspace_id, page);
      return { data: items.map(workspaceResourceResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.get(
    '/state-version-outputs/:state_version_output_id',
    {
      schema: {
        summary: 'Show a state version output, its value shown even when sensitive',
        tags,
        params: OutputParams,
        response: responses({ 200: OutputDocument }),
      },
    },
    async (request) => {
      return { data: outputResource(await stateVersions.output(request.caller, request.params.state_version_output_id)) };
    },
  );
}

/**
 * The upload URLs. Terraform PUTs to them without a token (go-tfe's foreign PUT), so they live
 * outside the authenticated scope; the signed credential in the query is the permission. Bodies are raw
 * bytes of any content type, up to the state cap.
 */
export async function stateUploadRoutes(app: Api, { stateVersions }: { stateVersions: StateVersionsService }, onRequest: onRequestHookHandler): Promise<void> {
  // Fastify's own JSON and text parsers would take those bodies apart (and leave no bytes to
  // store): every content type is bytes here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_STATE_BYTES }, (_request, body, done) => done(null, body));
  app.put(
    '/state-versions/:state_version_id/upload/:kind',
    {
      schema: {
        summary: 'Upload the bytes of a pending state version (no token: the signed URL is the permission)',
        tags,
        params: UploadParams,
        querystring: UploadQuery,
        response: responses({ 204: NoContent }),
      },
      // The credential is checked before the body is read: without one, nobody gets Hangar to buffer megabytes.
      onRequest: [
        onRequest,
        async (request) => {
          const { state_version_id, kind } = request.params as Static<typeof UploadParams>;
          const { credential } = request.query as Partial<Static<typeof UploadQuery>>;
          stateVersions.checkUploadUrl(state_version_id, kind, credential ?? '');
        },
      ],
      bodyLimit: MAX_STATE_BYTES,
    },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      await stateVersions.upload(request.params.state_version_id, request.params.kind, request.query.credential, body);
      return reply.code(204).send();
    },
  );
}
