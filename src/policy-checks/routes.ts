import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { responses } from '../jsonapi/schemas.ts';
import { Bytes, RunParams } from '../runs/schemas.ts';
import { runResource } from '../runs/serialize.ts';
import { ListPolicyChecksQuery, PolicyCheckDocument, PolicyCheckListDocument, PolicyCheckParams } from './schemas.ts';
import { policyCheckResource } from './serialize.ts';
import type { PolicyChecksService } from './service.ts';

const tags = ['Policy checks'];

export async function policyChecksRoutes(app: Api, deps: { policyChecks: PolicyChecksService; terraformVersion: () => string }): Promise<void> {
  const { policyChecks } = deps;

  app.get(
    '/runs/:run_id/policy-checks',
    {
      schema: {
        summary: "A run's policy checks",
        tags,
        params: RunParams,
        querystring: ListPolicyChecksQuery,
        response: responses({ 200: PolicyCheckListDocument }),
      },
    },
    async (request) => {
      const page = parsePage(request.query);
      const { items, total, run } = await policyChecks.list(request.caller, request.params.run_id, page);
      const include = (request.query.include ?? '').split(',').includes('run');
      return {
        data: items.map(policyCheckResource),
        ...envelope(absoluteUrl(request, app.config.baseUrl), page, total),
        ...(include && items.length > 0 ? { included: [runResource(run, { terraformVersion: deps.terraformVersion() })] } : {}),
      };
    },
  );

  app.get(
    '/policy-checks/:policy_check_id',
    { schema: { summary: 'Show a policy check', tags, params: PolicyCheckParams, response: responses({ 200: PolicyCheckDocument }) } },
    async (request) => {
      return { data: policyCheckResource(await policyChecks.show(request.caller, request.params.policy_check_id)) };
    },
  );

  app.post(
    '/policy-checks/:policy_check_id/actions/override',
    {
      schema: {
        summary: 'Override a soft-mandatory failure (the run goes on)',
        tags,
        params: PolicyCheckParams,
        response: responses({ 200: PolicyCheckDocument }),
      },
    },
    async (request) => ({ data: policyCheckResource(await policyChecks.override(request.caller, request.params.policy_check_id)) }),
  );

  app.get(
    '/policy-checks/:policy_check_id/output',
    {
      schema: {
        summary: "A policy check's log: each policy's result and print() output",
        tags,
        params: PolicyCheckParams,
        response: responses({ 200: Bytes }),
      },
    },
    async (request, reply) => {
      return reply
        .code(200)
        .type('text/plain')
        .send(await policyChecks.output(request.caller, request.params.policy_check_id));
    },
  );
}
