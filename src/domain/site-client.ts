import { badRequest, forbidden } from './errors.js';
import { SITE_NAME } from './urn.js';

/** The client id of a site is `ocsite-<site>`; its token carries the global role `ocsite`. */
export const SITE_CLIENT_PREFIX = 'ocsite-';
export const SITE_ROLE = 'ocsite';

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
