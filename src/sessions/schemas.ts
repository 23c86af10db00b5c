import { Type } from 'typebox';
import { Document, Resource, Timestamp, ToOne } from '../jsonapi/schemas.ts';

/** The sign-in form's fields (`application/x-www-form-urlencoded`); any others are ignored. */
export const SignInForm = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const SessionResource = Resource('Session', 'sessions', {
  attributes: { username: Type.String(), 'created-at': Timestamp, 'expires-at': Timestamp },
  relationships: { user: ToOne('users') },
  links: false,
});

export const SessionDocument = Document(SessionResource, 'The session the cookie stands for, and its user');
