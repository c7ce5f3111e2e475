/** Where the identity provider lives: Keycloak's layout with the `/auth` prefix of its older releases. */
export const REALM_PATH = '/auth/realms/opencity';
export const OIDC_PATH = `${REALM_PATH}/protocol/openid-connect`;
