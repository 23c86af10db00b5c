import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import { CreatePolicyBody, ListPoliciesQuery, PolicyDocument, PolicyListDocument, PolicyParams, PolicySource, UpdatePolicyBody } from './schemas.ts';
import { policyResource } from './serialize.ts';
import { MAX_SOURCE_BYTES, type PoliciesService, type PolicyInput } from './service.ts';

const tags = ['Policies'];

type Attributes = {
  description?: string | null;
  query?: string | null;
  enforce?: Array<{ path?: string | null; mode?: string | null }>;
  'enforcement-level'?: string;
};

/** The modelled members of a create or update body, field by field; everything else is ignored. */
const input = (a: Attributes): PolicyInput => ({
  description: a.description,
  query: a.query,
  enforce: a.enforce?.map((e) => ({ path: e.path, mode: e.mode })),
  enforcementLevel: a['enforcement-level'],
});

export async function policiesRoutes(app: Api, { policies }: { policies: PoliciesService }): Promise<void> {
  app.get(
    '/organizations/:organization_name/policies',
    {
      schema: {
        summary: "List an organization's policies",
        tags,
        params: OrganizationParams,
        querystring: ListPoliciesQuery,
        response: responses({ 200: PolicyListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = parsePage(query);
      const filter = { search: query['search[name]'] || undefined, kind: query['filter[kind]'] || undefined };
      const { items, total } = await policies.list(request.caller, request.params.organization_name, filter, page);
      return { data: items.map(policyResource), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.post(
    '/organizations/:organization_name/policies',
    {
      schema: {
        summary: 'Create a policy (its source is uploaded separately)',
        tags,
        params: OrganizationParams,
        body: CreatePolicyBody,
        response: responses({ 201: PolicyDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const view = await policies.create(request.caller, request.params.organization_name, { ...input(a), name: a.name, kind: a.kind });
      return reply.code(201).send({ data: policyResource(view) });
    },
  );

  app.get(
    '/policies/:policy_id',
    { schema: { summary: 'Show a policy', tags, params: PolicyParams, response: responses({ 200: PolicyDocument }) } },
    async (request) => {
      return { data: policyResource(await policies.show(request.caller, request.params.policy_id)) };
    },
  );

  app.patch(
    '/policies/:policy_id',
    {
      schema: {
        summary: "Change a policy's description, query or enforcement level",
        tags,
        params: PolicyParams,
        body: UpdatePolicyBody,
        response: responses({ 200: PolicyDocument }),
      },
    },
    async (request) => {
      return { data: policyResource(await policies.update(request.caller, request.params.policy_id, input(request.body.data.attributes ?? {}))) };
    },
  );

  app.delete(
    '/policies/:policy_id',
    { schema: { summary: 'Delete a policy (the sets holding it let it go)', tags, params: PolicyParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await policies.destroy(request.caller, request.params.policy_id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/policies/:policy_id/download',
    { schema: { summary: "Download a policy's source", tags, params: PolicyParams, response: responses({ 200: PolicySource }) } },
    async (request, reply) => {
      const source = await policies.download(request.caller, request.params.policy_id);
      return reply
        .type('application/octet-stream')
        .header('cache-control', 'no-store')
        .send(Buffer.from(source.buffer, source.byteOffset, source.byteLength));
    },
  );
}

/**
 * The source upload: authenticated as every API route, but the body is the raw source
 * (`application/octet-stream`, as go-tfe sends it), so it lives in a scope of its own.
 */
export async function policyUploadRoutes(app: Api, { policies }: { policies: PoliciesService }): Promise<void> {
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: MAX_SOURCE_BYTES }, (_request, body, done) => done(null, body));
  app.put(
    '/policies/:policy_id/upload',
    {
      bodyLimit: MAX_SOURCE_BYTES,
      schema: {
        summary: "Upload a policy's source (raw bytes)",
        tags,
        consumes: ['application/octet-stream'],
        params: PolicyParams,
        response: responses({ 204: NoContent }),
      },
    },
    async (request, reply) => {
      const body = request.body;
      await policies.upload(request.caller, request.params.policy_id, body instanceof Uint8Array ? body : new Uint8Array());
      return reply.code(204).send();
    },
  );
}
