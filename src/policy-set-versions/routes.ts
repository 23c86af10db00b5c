import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';
import { PolicySetParams } from '../policy-sets/schemas.ts';
import { PolicySetVersionDocument, PolicySetVersionParams, UploadParams } from './schemas.ts';
import { policySetVersionResource } from './serialize.ts';
import { MAX_ARCHIVE_BYTES, type PolicySetVersionsService, type VersionView } from './service.ts';

/** Where upload links point, outside /api/v2 (beside configuration versions' archivist URLs). */
export const UPLOAD_PREFIX = '/_archivist/v1/policy-set-version';

const tags = ['Policy set versions'];

export async function policySetVersionsRoutes(app: Api, { policySetVersions }: { policySetVersions: PolicySetVersionsService }): Promise<void> {
  const resource = (request: Parameters<typeof absoluteUrl>[0], { version, uploadObject }: VersionView) =>
    policySetVersionResource(version, uploadObject ? new URL(`${UPLOAD_PREFIX}/${uploadObject}`, absoluteUrl(request, app.config.baseUrl)).toString() : null);

  // go-tfe sends no body at all (a JSON:API content type and nothing else); a body a client does
  // send has nothing Hangar reads, so none is validated.
  app.post(
    '/policy-sets/:policy_set_id/versions',
    {
      schema: {
        summary: 'Create a policy set version and its upload link (no body needed)',
        tags,
        params: PolicySetParams,
        response: responses({ 201: PolicySetVersionDocument }),
      },
    },
    async (request, reply) => {
      const view = await policySetVersions.create(request.caller, request.params.policy_set_id);
      return reply.code(201).send({ data: resource(request, view) });
    },
  );

  app.get(
    '/policy-set-versions/:policy_set_version_id',
    { schema: { summary: 'Show a policy set version', tags, params: PolicySetVersionParams, response: responses({ 200: PolicySetVersionDocument }) } },
    async (request) => {
      return { data: resource(request, await policySetVersions.show(request.caller, request.params.policy_set_version_id)) };
    },
  );
}

/**
 * The upload link: no Authorization (the URL is the credential), any body as bytes, up to
 * MAX_ARCHIVE_BYTES. Registered in a scope of its own, outside /api/v2.
 */
export async function policySetVersionUploadRoutes(app: Api, { policySetVersions }: { policySetVersions: PolicySetVersionsService }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_ARCHIVE_BYTES }, (_request, body, done) => done(null, body));
  app.put(
    `${UPLOAD_PREFIX}/:object`,
    {
      bodyLimit: MAX_ARCHIVE_BYTES,
      schema: {
        summary: "Upload a policy set version's tar.gz (the URL is the credential; no token)",
        tags,
        consumes: ['application/octet-stream'],
        params: UploadParams,
        response: responses({ 200: NoContent }),
      },
      // The credential is checked before the body is read: without one, nobody gets Hangar to buffer megabytes.
      onRequest: async (request) => {
        policySetVersions.checkUploadUrl((request.params as Partial<Static<typeof UploadParams>>).object ?? '');
      },
    },
    async (request, reply) => {
      const body = request.body;
      await policySetVersions.upload(request.params.object, body instanceof Uint8Array ? body : new Uint8Array());
      return reply.code(200).send();
    },
  );
}
