import { archiveUploadRoute, type Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { responses } from '../jsonapi/schemas.ts';
import { PolicySetParams } from '../policy-sets/schemas.ts';
import { PolicySetVersionDocument, PolicySetVersionParams } from './schemas.ts';
import { policySetVersionResource } from './serialize.ts';
import type { PolicySetVersionsService, VersionView } from './service.ts';

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

/** A policy set version's upload link (the tar.gz; the URL is the credential), outside /api/v2. */
export async function policySetVersionUploadRoutes(app: Api, { policySetVersions }: { policySetVersions: PolicySetVersionsService }): Promise<void> {
  archiveUploadRoute(app, {
    prefix: UPLOAD_PREFIX,
    summary: "Upload a policy set version's tar.gz (the URL is the credential; no token)",
    tags,
    maxObjectLength: 160,
    check: (object) => policySetVersions.checkUploadUrl(object),
    upload: (object, bytes) => policySetVersions.upload(object, bytes),
  });
}
