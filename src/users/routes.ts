import type { Api } from '../app.ts';
import { UserParams } from './schemas.ts';
import { userResource } from './serialize.ts';

export async function usersRoutes(app: Api): Promise<void> {
  const { users } = app.services;

  app.get('/account/details', async (request) => {
    const user = await users.accountDetails(request.caller);
    return { data: userResource(user, { self: true, principal: request.caller.principal }) };
  });

  app.get('/users/:user_id', { schema: { params: UserParams } }, async (request) => {
    const user = await users.show(request.caller, request.params.user_id);
    const p = request.caller.principal;
    return { data: userResource(user, { self: p.kind === 'user' && p.user.id === user.id }) };
  });
}
