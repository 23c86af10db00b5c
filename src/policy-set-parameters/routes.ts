import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage, wantsPage, type Page } from '../jsonapi/pagination.ts';
import { PolicySetParams } from '../policy-sets/schemas.ts';
import { CreateParameterBody, ListParametersQuery, ParameterDocument, ParameterListDocument, ParameterParams, UpdateParameterBody } from './schemas.ts';
import { parameterResource, parameterResources } from './serialize.ts';
import { MAX_PARAMETERS, type PolicySetParametersService } from './service.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

/** Without page parameters: every parameter, as one page as long as a set can hold. */
const WHOLE_LIST: Page = { number: 1, size: MAX_PARAMETERS, offset: 0 };

const tags = ['Policy set parameters'];

export async function policySetParametersRoutes(
  app: Api,
  { policySetParameters: parameters }: { policySetParameters: PolicySetParametersService },
): Promise<void> {
  // Every parameter and only `data` unless the client asks for a page, as in TFE. A set filled
  // before the cap on parameters existed may hold more than a page: then the first page comes with
  // the envelope, so that no response grows past the bound and the client sees there is more.
  app.get(
    '/policy-sets/:policy_set_id/parameters',
    {
      schema: {
        summary: "List a policy set's parameters (unpaginated unless a page is asked for)",
        tags,
        params: PolicySetParams,
        querystring: ListParametersQuery,
        response: responses({ 200: ParameterListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const paged = wantsPage(query);
      const page = paged ? parsePage(query) : WHOLE_LIST;
      const { items, total } = await parameters.list(request.caller, request.params.policy_set_id, page);
      const data = parameterResources(items);
      return paged || total > items.length ? { data, ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) } : { data };
    },
  );

  app.post(
    '/policy-sets/:policy_set_id/parameters',
    {
      schema: {
        summary: 'Create a parameter (a sensitive value is never shown again)',
        tags,
        params: PolicySetParams,
        body: CreateParameterBody,
        response: responses({ 201: ParameterDocument }),
      },
    },
    async (request, reply) => {
      const a = request.body.data.attributes;
      const parameter = await parameters.create(request.caller, request.params.policy_set_id, {
        key: a.key,
        value: a.value,
        category: a.category,
        sensitive: a.sensitive,
      });
      return reply.code(201).send({ data: parameterResource(parameter) });
    },
  );

  app.get(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { schema: { summary: 'Show a parameter', tags, params: ParameterParams, response: responses({ 200: ParameterDocument }) } },
    async (request) => {
      const { policy_set_id, parameter_id } = request.params;
      return { data: parameterResource(await parameters.show(request.caller, policy_set_id, parameter_id)) };
    },
  );

  app.patch(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { schema: { summary: 'Update a parameter', tags, params: ParameterParams, body: UpdateParameterBody, response: responses({ 200: ParameterDocument }) } },
    async (request) => {
      const { policy_set_id, parameter_id } = request.params;
      const { id, attributes: a = {} } = request.body.data;
      const input = { key: a.key, value: a.value, category: a.category, sensitive: a.sensitive };
      return { data: parameterResource(await parameters.update(request.caller, policy_set_id, parameter_id, id, input)) };
    },
  );

  app.delete(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { schema: { summary: 'Delete a parameter', tags, params: ParameterParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      const { policy_set_id, parameter_id } = request.params;
      await parameters.destroy(request.caller, policy_set_id, parameter_id);
      return reply.code(204).send();
    },
  );
}
