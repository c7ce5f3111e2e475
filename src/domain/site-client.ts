import { badRequest, forbidden } from './errors.js';
import { SITE_NAME } from './urn.js';

/** The client id of a site is `ocsite-<site>`; its token carries the global role `ocsite`. */
export const SITE_CLIENT_PREFIX = 'ocsite-';
export const SITE_ROLE = 'ocsite';

/**
 * The site a client id would act for, when it carries the site prefix in any case (client ids
 * are compared ignoring case): such ids are reserved to site registration, which makes the
 * site and its client together. Undefined for any other id.
 */
export function siteOfReservedClientId(clientId: string): string | undefined {
  return clientId.toLowerCase().startsWith(SITE_CLIENT_PREFIX) ? clientId.slice(SITE_CLIENT_PREFIX.length) : undefined;
}

/** Why a client id of the site prefix cannot be made for `site` outside site registration. */
export const reservedSiteClientMessage = (clientId: string, site: string): string =>
  `Client ids starting with ${SITE_CLIENT_PREFIX} are reserved to sites: ${clientId} names site ${site}, which is not registered. `
  + `Register it with opencity site add ${site}, which makes its client.`;

/** What the federation needs to know of a caller (a subset of the verified Caller). */
export interface FederationCaller {
  /** The token's `clientId` (or `client_id`) claim, or `azp` for a service-account token. */
  clientId: string | undefined;
  roles: readonly string[];
}

/**
 * The site a caller pushes for, checked in the original platform's order:
 * the role, then that the caller is a client at all, then the shape of its id.
 */
export function siteOfCaller(caller: FederationCaller): string {
  if (!caller.roles.includes(SITE_ROLE)) throw forbidden(`The role ${SITE_ROLE} is required to use the federation interface`);
  const clientId = caller.clientId;
  if (clientId === undefined) throw badRequest('You are not a client! The federation interface takes the token of a site client');
  if (!clientId.startsWith(SITE_CLIENT_PREFIX)) {
    throw badRequest(`ClientID wrong. You are not a site client: site client ids start with ${SITE_CLIENT_PREFIX}`);
  }
  const site = clientId.slice(SITE_CLIENT_PREFIX.length);
  if (!SITE_NAME.test(site)) throw badRequest(`ClientID wrong: ${clientId} does not name a site (${SITE_CLIENT_PREFIX}<site>)`);
  return site;
}
