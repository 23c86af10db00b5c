import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage, wantsPage, type Page } from '../jsonapi/pagination.ts';
import { PolicySetParams } from '../policy-sets/schemas.ts';
import { CreateParameterBody, ListParametersQuery, ParameterParams, UpdateParameterBody } from './schemas.ts';
import { parameterResource } from './serialize.ts';
import { MAX_PARAMETERS, type PolicySetParametersService } from './service.ts';

/** Without page parameters: every parameter, as one page as long as a set can hold. */
const WHOLE_LIST: Page = { number: 1, size: MAX_PARAMETERS, offset: 0 };

export async function policySetParametersRoutes(app: Api, { policySetParameters: parameters }: { policySetParameters: PolicySetParametersService }): Promise<void> {
  // Every parameter and only `data` unless the client asks for a page, as in TFE. A set filled
  // before the cap on parameters existed may hold more than a page: then the first page comes with
  // the envelope, so that no response grows past the bound and the client sees there is more.
  app.get('/policy-sets/:policy_set_id/parameters', { schema: { params: PolicySetParams, querystring: ListParametersQuery } }, async (request) => {
    const query = request.query;
    const paged = wantsPage(query);
    const page = paged ? parsePage(query) : WHOLE_LIST;
    const { items, total } = await parameters.list(request.caller, request.params.policy_set_id, page);
    const data = items.map(parameterResource);
    return paged || total > items.length ? { data, ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) } : { data };
  });

  app.post(
    '/policy-sets/:policy_set_id/parameters',
    { schema: { params: PolicySetParams, body: CreateParameterBody } },
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

  app.get('/policy-sets/:policy_set_id/parameters/:parameter_id', { schema: { params: ParameterParams } }, async (request) => {
    const { policy_set_id, parameter_id } = request.params;
    return { data: parameterResource(await parameters.show(request.caller, policy_set_id, parameter_id)) };
  });

  app.patch(
    '/policy-sets/:policy_set_id/parameters/:parameter_id',
    { schema: { params: ParameterParams, body: UpdateParameterBody } },
    async (request) => {
      const { policy_set_id, parameter_id } = request.params;
      const { id, attributes: a = {} } = request.body.data;
      const input = { key: a.key, value: a.value, category: a.category, sensitive: a.sensitive };
      return { data: parameterResource(await parameters.update(request.caller, policy_set_id, parameter_id, id, input)) };
    },
  );

  app.delete('/policy-sets/:policy_set_id/parameters/:parameter_id', { schema: { params: ParameterParams } }, async (request, reply) => {
    const { policy_set_id, parameter_id } = request.params;
    await parameters.destroy(request.caller, policy_set_id, parameter_id);
    return reply.code(204).send();
  });
}
