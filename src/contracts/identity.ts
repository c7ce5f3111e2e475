import { Type, type Static } from '@sinclair/typebox';

/** Request and response shapes of the identity provider (OpenID Connect, as Keycloak serves it). */

const text = (description: string) => Type.Optional(Type.String({ description }));

export const TokenRequest = Type.Object({
  grant_type: Type.String({ description: 'client_credentials, password, refresh_token or authorization_code' }),
  client_id: text('The client, when it does not use HTTP Basic'),
  client_secret: text('The client secret, when it does not use HTTP Basic'),
  scope: text('Space-separated scopes: openid, profile, email, offline_access'),
  username: text('password grant: user name or e-mail address'),
  password: text('password grant: the password'),
  refresh_token: text('refresh_token grant: the refresh token'),
  code: text('authorization_code grant: the code'),
  redirect_uri: text('authorization_code grant: the redirect URI of the authorization request'),
  code_verifier: text('authorization_code grant: the PKCE verifier'),
}, { additionalProperties: true });
export type TokenRequest = Static<typeof TokenRequest>;

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  expires_in: Type.Integer({ description: 'Seconds the access token lives (300)' }),
  refresh_expires_in: Type.Integer({ description: 'Seconds the refresh token lives; 0 when there is none or it is an offline token' }),
  refresh_token: Type.Optional(Type.String()),
  token_type: Type.Literal('Bearer'),
  id_token: Type.Optional(Type.String()),
  'not-before-policy': Type.Integer(),
  session_state: Type.Optional(Type.String()),
  scope: Type.String(),
});
export type TokenResponse = Static<typeof TokenResponse>;

export const OAuthError = Type.Object({
  error: Type.String({ description: 'RFC 6749 error code: invalid_client, invalid_grant, unsupported_grant_type, invalid_request, unauthorized_client…' }),
  error_description: Type.String(),
});

export const DiscoveryDocument = Type.Object({
  issuer: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  userinfo_endpoint: Type.String(),
  end_session_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  jwks_uri: Type.String(),
  grant_types_supported: Type.Array(Type.String()),
  response_types_supported: Type.Array(Type.String()),
  response_modes_supported: Type.Array(Type.String()),
  subject_types_supported: Type.Array(Type.String()),
  id_token_signing_alg_values_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  claims_supported: Type.Array(Type.String()),
  authorization_response_iss_parameter_supported: Type.Boolean(),
  request_parameter_supported: Type.Boolean(),
  claims_parameter_supported: Type.Boolean(),
});

export const Jwks = Type.Object({
  keys: Type.Array(Type.Object({
    kty: Type.String(), kid: Type.String(), alg: Type.String(), use: Type.String(),
    crv: Type.Optional(Type.String()), x: Type.Optional(Type.String()), y: Type.Optional(Type.String()),
    n: Type.Optional(Type.String()), e: Type.Optional(Type.String()),
  })),
});

export const UserInfo = Type.Object({
  sub: Type.String(),
  preferred_username: Type.String(),
  email: Type.Optional(Type.String()),
});

export const AuthorizeQuery = Type.Object({
  response_type: text('Must be "code"'),
  client_id: text('The client asking'),
  redirect_uri: text('Exactly one of the client\'s registered redirect URIs'),
  scope: text('Space-separated scopes; "openid" adds an ID token'),
  state: text('Returned unchanged with the code'),
  nonce: text('Copied into the ID token'),
  code_challenge: text('PKCE: base64url SHA-256 of the verifier (required)'),
  code_challenge_method: text('Must be "S256"'),
  prompt: text('"none" is answered with login_required: the provider keeps no browser session'),
}, { additionalProperties: true });
export type AuthorizeQuery = Static<typeof AuthorizeQuery>;

export const LoginForm = Type.Object({
  request: text('The signed authorization request the form carries'),
  username: text('User name or e-mail address'),
  password: text('Password'),
  cancel: text('Present when the person cancels'),
}, { additionalProperties: true });
export type LoginForm = Static<typeof LoginForm>;

export const LogoutParams = Type.Object({
  id_token_hint: text('An ID token of the session to end (RP-initiated logout)'),
  post_logout_redirect_uri: text('Where to send the browser afterwards: one of the client\'s registered redirect URIs'),
  state: text('Returned unchanged to post_logout_redirect_uri'),
  client_id: text('The client, for logout with a refresh token'),
  client_secret: text('Its secret, for a confidential client'),
  refresh_token: text('A refresh token of the session to end'),
}, { additionalProperties: true });
export type LogoutParams = Static<typeof LogoutParams>;

export const RevocationRequest = Type.Object({
  token: Type.String({ description: 'The token to revoke (refresh tokens end their session; access tokens expire by themselves)' }),
  token_type_hint: text('refresh_token or access_token'),
  client_id: text('The client, when it does not use HTTP Basic'),
  client_secret: text('Its secret'),
}, { additionalProperties: true });
