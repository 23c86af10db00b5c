import type { Api } from '../api.ts';
import { UpdateAccountBody, UserDocument, UserParams } from './schemas.ts';
import { userResource } from './serialize.ts';
import type { UsersService } from './service.ts';
import { responses } from '../jsonapi/schemas.ts';

const tags = ['Account'];

export async function usersRoutes(app: Api, { users }: { users: UsersService }): Promise<void> {
  app.get(
    '/account/details',
    { schema: { summary: 'Show the caller (for an organization token: its service user)', tags, response: responses({ 200: UserDocument }) } },
    async (request) => {
      return { data: userResource(await users.accountDetails(request.caller)) };
    },
  );

  app.patch(
    '/account/update',
    { schema: { summary: "Change the caller's own username or e-mail address", tags, body: UpdateAccountBody, response: responses({ 200: UserDocument }) } },
    async (request) => {
      const a = request.body.data.attributes ?? {};
      return { data: userResource(await users.updateAccount(request.caller, { username: a.username, email: a.email })) };
    },
  );

  app.get(
    '/users/:user_id',
    { schema: { summary: 'Show a user (the e-mail address only to its owner)', tags, params: UserParams, response: responses({ 200: UserDocument }) } },
    async (request) => {
      return { data: userResource(await users.show(request.caller, request.params.user_id)) };
    },
  );
}
