import { Type } from 'typebox';

export const UserParams = Type.Object({ user_id: Type.String() });
