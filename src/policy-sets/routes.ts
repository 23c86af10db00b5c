import type { Static } from 'typebox';
import type { Api } from '../api.ts';
import { absoluteUrl } from '../jsonapi/http.ts';
import { envelope, parsePage } from '../jsonapi/pagination.ts';
import { includes } from '../jsonapi/query.ts';
import { policyResource } from '../policies/serialize.ts';
import { policySetVersionResource } from '../policy-set-versions/serialize.ts';
import { OrganizationParams } from '../organizations/schemas.ts';
import {
  CreatePolicySetBody,
  ListPolicySetsQuery,
  PolicySetDocument,
  PolicySetListDocument,
  PolicySetParams,
  PolicySetPoliciesBody,
  PolicySetProjectsBody,
  PolicySetWorkspacesBody,
  ShowPolicySetQuery,
  UpdatePolicySetBody,
} from './schemas.ts';
import { POLICY_SET_INCLUDES, type PolicySetInclude, type PolicySetInput, type PolicySetsService, type PolicySetView, type Relation } from './service.ts';
import { policySetResource } from './serialize.ts';
import { NoContent, responses } from '../jsonapi/schemas.ts';

type Data = Static<typeof UpdatePolicySetBody>['data'];

/** The modelled members of a create or update body, field by field; everything else is ignored. */
function input(attributes: NonNullable<Data['attributes']>, relationships: Data['relationships']): PolicySetInput {
  return {
    name: attributes.name,
    description: attributes.description,
    kind: attributes.kind,
    global: attributes.global,
    overridable: attributes.overridable,
    agentEnabled: attributes['agent-enabled'],
    policyToolVersion: attributes['policy-tool-version'],
    projectIds: relationships?.projects?.data.map((p) => p.id),
    workspaceIds: relationships?.workspaces?.data.map((w) => w.id),
    excludedWorkspaceIds: relationships?.['workspace-exclusions']?.data.map((w) => w.id),
    policyIds: relationships?.policies?.data.map((p) => p.id),
  };
}

const setIncludes = (value: string | undefined) => includes(value, POLICY_SET_INCLUDES) as PolicySetInclude[];

const tags = ['Policy sets'];

export async function policySetsRoutes(app: Api, { policySets }: { policySets: PolicySetsService }): Promise<void> {
  /** The top-level `included` member, when the request asked for related resources. */
  async function included(views: readonly PolicySetView[], include: readonly PolicySetInclude[]) {
    if (!include.includes('policies') && !include.includes('newest_version') && !include.includes('current_version')) return {};
    const related = await policySets.included(views, include);
    return { included: [...related.policies.map(policyResource), ...related.versions.map((v) => policySetVersionResource(v))] };
  }

  app.get(
    '/organizations/:organization_name/policy-sets',
    {
      schema: {
        summary: "List an organization's policy sets",
        tags,
        params: OrganizationParams,
        querystring: ListPolicySetsQuery,
        response: responses({ 200: PolicySetListDocument }),
      },
    },
    async (request) => {
      const query = request.query;
      const include = setIncludes(query.include);
      const page = parsePage(query);
      const filter = { search: query['search[name]'] || undefined, kind: query['filter[kind]'] || undefined };
      const { items, total } = await policySets.list(request.caller, request.params.organization_name, filter, page);
      return { data: items.map(policySetResource), ...(await included(items, include)), ...envelope(absoluteUrl(request, app.config.baseUrl), page, total) };
    },
  );

  app.post(
    '/organizations/:organization_name/policy-sets',
    {
      schema: { summary: 'Create a policy set', tags, params: OrganizationParams, body: CreatePolicySetBody, response: responses({ 201: PolicySetDocument }) },
    },
    async (request, reply) => {
      const { attributes, relationships } = request.body.data;
      const view = await policySets.create(request.caller, request.params.organization_name, {
        ...input(attributes, relationships),
        name: attributes.name,
      });
      return reply.code(201).send({ data: policySetResource(view) });
    },
  );

  app.get(
    '/policy-sets/:policy_set_id',
    {
      schema: { summary: 'Show a policy set', tags, params: PolicySetParams, querystring: ShowPolicySetQuery, response: responses({ 200: PolicySetDocument }) },
    },
    async (request) => {
      const include = setIncludes(request.query.include);
      const view = await policySets.show(request.caller, request.params.policy_set_id);
      return { data: policySetResource(view), ...(await included([view], include)) };
    },
  );

  app.patch(
    '/policy-sets/:policy_set_id',
    {
      schema: {
        summary: 'Update a policy set (relationships given replace the lists)',
        tags,
        params: PolicySetParams,
        body: UpdatePolicySetBody,
        response: responses({ 200: PolicySetDocument }),
      },
    },
    async (request) => {
      const { attributes, relationships } = request.body.data;
      const view = await policySets.update(request.caller, request.params.policy_set_id, input(attributes ?? {}, relationships));
      return { data: policySetResource(view) };
    },
  );

  app.delete(
    '/policy-sets/:policy_set_id',
    { schema: { summary: 'Delete a policy set, its parameters and its versions', tags, params: PolicySetParams, response: responses({ 204: NoContent }) } },
    async (request, reply) => {
      await policySets.destroy(request.caller, request.params.policy_set_id);
      return reply.code(204).send();
    },
  );

  for (const [relation, body] of [
    ['projects', PolicySetProjectsBody],
    ['workspaces', PolicySetWorkspacesBody],
    ['workspace-exclusions', PolicySetWorkspacesBody],
    ['policies', PolicySetPoliciesBody],
  ] as const satisfies ReadonlyArray<readonly [Relation, unknown]>) {
    const url = `/policy-sets/:policy_set_id/relationships/${relation}`;
    app.post(
      url,
      { schema: { summary: `Attach ${relation} to a policy set`, tags, params: PolicySetParams, body, response: responses({ 204: NoContent }) } },
      async (request, reply) => {
        await policySets.attach(
          request.caller,
          request.params.policy_set_id,
          relation,
          request.body.data.map((d) => d.id),
        );
        return reply.code(204).send();
      },
    );
    app.delete(
      url,
      { schema: { summary: `Detach ${relation} from a policy set`, tags, params: PolicySetParams, body, response: responses({ 204: NoContent }) } },
      async (request, reply) => {
        await policySets.detach(
          request.caller,
          request.params.policy_set_id,
          relation,
          request.body.data.map((d) => d.id),
        );
        return reply.code(204).send();
      },
    );
  }
}
