/**
 * Request and response schemas of the permissions interface (spec part B),
 * written once: they type the routes, validate bodies (strictly: no coercion, so
 * `{"role": true}` is refused rather than read as the role "true") and make the
 * OpenAPI document. Query and path parameters are strings, as the spec gives
 * them; src/domain reads them so that a bad value gets the status the spec names.
 */
import { Type, type Static } from '@sinclair/typebox';
import { QueryObject } from './query.js';
import { MAX_CLIENT_NAME_LENGTH, MAX_REDIRECT_URIS, MAX_URI_LENGTH } from '../domain/client-registration.js';
import { USER_PAGE_DEFAULT, USER_PAGE_MAX } from '../domain/user-paging.js';

export const PermissionsError = Type.Object({
  error: Type.String({ description: 'What was wrong', examples: ['The given count is too large.'] }),
}, { description: 'Permissions Error' });

const error = (description: string) => ({ ...PermissionsError, description });

/** The statuses every operation can answer with (401, 403), then per operation. */
export const commonErrors = {
  401: error('No bearer token, or an invalid or expired one'),
  403: error('Not a client\'s service account, a permission is missing, or the role belongs to another tool'),
};

const noBody = (description: string) => ({ description, type: 'null' });

// ---- clients ----------------------------------------------------------------
// Lengths and URI rules are checked in src/domain/client-registration.ts (422), not here (400).

export const ClientBody = Type.Object({
  clientName: Type.Optional(Type.String({ description: `Display name, at most ${MAX_CLIENT_NAME_LENGTH} characters`, examples: ['Noise map experiment'] })),
  clientUri: Type.Optional(Type.String({ description: 'Home page of the client: an absolute URI, or empty', examples: ['https://noise.example.org'] })),
  redirectUri: Type.Optional(Type.String({ description: `An allowed redirect URI: absolute, no fragment, at most ${MAX_URI_LENGTH} characters; or empty`, examples: ['https://noise.example.org/callback'] })),
  clientId: Type.Optional(Type.String({
    description: 'Extension: the client id to create (1–128 letters, digits, ".", "_", "-"; not starting with opencity-). '
      + 'A site client is ocsite-<site>. Omitted: a random UUID, as in the original platform.',
    examples: ['ocsite-valencia'],
  })),
}, { description: 'Client' });
export type ClientBody = Static<typeof ClientBody>;

export const ClientCredentials = Type.Object({
  client_id: Type.String({ description: 'Unique id of the client', examples: ['c6e3c4ae-6a9e-4b4b-9d2b-8f2a2c7c1f0e'] }),
  secret: Type.String({ description: 'Secret of the client, shown this once' }),
  service_account_id: Type.String({
    description: 'Extension: the id of the client\'s service-account user (the `sub` of its tokens); grant the client roles with POST /users/{service_account_id}/roles',
  }),
}, { description: 'ClientCredentials' });

export const ClientParams = Type.Object({
  clientId: Type.String({ description: 'The client id (the public one, as in tokens)' }),
});

export const RedirectUris = Type.Object({
  redirectUris: Type.Array(Type.String(), {
    description: `Absolute URIs without fragment (each at most ${MAX_URI_LENGTH} characters, at most ${MAX_REDIRECT_URIS} of them); `
      + 'repeats are dropped, order is kept',
    examples: [['https://noise.example.org/callback']],
  }),
}, { description: 'RedirectUris' });
export type RedirectUris = Static<typeof RedirectUris>;

export const createClientResponses = {
  201: ClientCredentials,
  400: error('The body is not JSON, or a field has the wrong type'),
  ...commonErrors,
  409: error('A client with that id exists'),
  415: error('The body is not application/json'),
  422: error('A field is not valid (client id, URIs)'),
};

export const readRedirectUrisResponses = {
  200: RedirectUris,
  ...commonErrors,
  404: error('No such client'),
};

export const editRedirectUrisResponses = {
  200: noBody('The redirect URIs were replaced'),
  400: error('The body is not a RedirectUris object'),
  ...commonErrors,
  404: error('No such client'),
  422: error('A URI is not absolute, has a fragment, or there are too many'),
};

// ---- users ------------------------------------------------------------------

export const UsersQuery = QueryObject({
  offset: Type.Optional(Type.String({ description: 'Users to skip: a whole number >= 0 (default 0). Needs listUsers.', examples: ['0'] })),
  count: Type.Optional(Type.String({
    description: `Users returned at most: a whole number 1–${USER_PAGE_MAX} (default ${USER_PAGE_DEFAULT}). Needs listUsers.`, examples: ['50'],
  })),
  email: Type.Optional(Type.String({
    maxLength: 320,
    description: 'Find the user with this e-mail address (exact, ignoring case) instead of listing. Needs findUserByEmail.',
    examples: ['alice@example.org'],
  })),
});

export const UserIdentifier = Type.Object({
  id: Type.String({ description: 'Unique, permanent user id: the subject (sub) of the user\'s tokens' }),
  name: Type.String({ description: 'The user name' }),
}, { description: 'UserIdentifier' });

export const listUsersResponses = {
  200: Type.Array(UserIdentifier, { description: 'Users sorted by name; [] past the end of the list' }),
  400: error('email is given more than once, or is longer than 320 characters'),
  ...commonErrors,
  404: error('email: no user has that address'),
  422: error('offset or count is not a whole number or out of bounds'),
};

// ---- roles ------------------------------------------------------------------

export const Role = Type.Object({
  role: Type.String({
    description: 'A global role (experimenter, participant, sitemanager, administrator, ocsite, provider, …) or a tool permission <tool>:<name>',
    examples: ['participant'],
  }),
  experiment: Type.Optional(Type.String({ description: 'Experiment id, for roles restricted to one experiment (participant needs one)', examples: ['d87c9025-7d4a-4c8e-9d3b-2f1c6a5e8b10'] })),
}, { description: 'Role' });
export type Role = Static<typeof Role>;

export const UserParams = Type.Object({
  userId: Type.String({ description: 'The user id: the subject (sub) of the user\'s tokens; for a client, of its service account' }),
});

export const UserRoleParams = Type.Object({
  userId: Type.String({ description: 'The user id (sub)' }),
  roleName: Type.String({ description: 'The role name, e.g. participant or scenarios:admin' }),
});

export const ExperimentQuery = QueryObject({
  experiment: Type.Optional(Type.String({ description: 'The experiment id, for roles restricted to one experiment (participant needs one)' })),
});

export const listRolesResponses = {
  200: Type.Array(Role, { description: 'Global roles (composites expanded), then the caller\'s own tool permissions; [] when none is visible' }),
  ...commonErrors,
  404: error('No such user'),
};

export const grantRoleResponses = {
  201: Role,
  400: error('The body is not a Role object'),
  ...commonErrors,
  404: error('No such user, or the role name does not adhere to the required format'),
  422: error('The role needs an experiment id and none was given, or the experiment id is not valid'),
};

export const readRoleResponses = {
  200: Role,
  ...commonErrors,
  404: error('The user does not hold the role, there is no such user, or the role name is malformed'),
  422: error('The role needs an experiment id and none was given'),
};

export const revokeRoleResponses = {
  200: noBody('The role is not (or no longer) assigned'),
  ...commonErrors,
  404: error('No such user, or the role name is malformed'),
  422: error('The role needs an experiment id and none was given'),
};
