import type { Api } from '../api.ts';
import { UpdateAccountBody, UserParams } from './schemas.ts';
import { userResource } from './serialize.ts';
import type { UsersService } from './service.ts';

export async function usersRoutes(app: Api, { users }: { users: UsersService }): Promise<void> {
  app.get('/account/details', async (request) => {
    return { data: userResource(await users.accountDetails(request.caller)) };
  });

  app.patch('/account/update', { schema: { body: UpdateAccountBody } }, async (request) => {
    const a = request.body.data.attributes ?? {};
    return { data: userResource(await users.updateAccount(request.caller, { username: a.username, email: a.email })) };
  });

  app.get('/users/:user_id', { schema: { params: UserParams } }, async (request) => {
    return { data: userResource(await users.show(request.caller, request.params.user_id)) };
  });
}
