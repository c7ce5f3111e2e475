import { badRequest } from './errors.js';

/** Asset ids and types (spec part A, "Asset id"). */
export const ENTITY_PREFIX = 'urn:oc:entity:';
export const ENTITY_TYPE_PREFIX = 'urn:oc:entityType:';

/** The site of experiments: its ids carry experimenter and experiment instead of service and provider. */
export const EXPERIMENTERS_SITE = 'experimenters';

/** A site name: what follows `ocsite-` in its client id and `urn:oc:entity:` in its asset ids. */
export const SITE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

/** What an asset id says about the asset. Absent segments are null. */
export interface AssetUrn {
  site: string;
  service: string | null;
  provider: string | null;
  group: string | null;
  name: string;
  experimenter: string | null;
  experiment: string | null;
}

export function sitePrefix(site: string): string {
  return `${ENTITY_PREFIX}${site}:`;
}

/** A site touches only ids under its own prefix (case-sensitive, as the original). */
export function assertOwnAssetId(id: string, site: string): void {
  if (!id.startsWith(sitePrefix(site))) {
    throw badRequest(`Asset.id prefix wrong: the assets of this site start with ${sitePrefix(site)}`);
  }
}

/**
 * Splits an asset id of `site` into its segments.
 * City sites: `<service>:<provider>:<group>:<name>`, shorter forms allowed as the
 * real sites used them — one segment is the name; two are service and name;
 * three are service, provider and name; from four on the third is the group and
 * the rest (which may hold colons) the name.
 * Experimenters: `<experimenterId>:<experimentId>:<name>`.
 * The prefix must already have been checked (assertOwnAssetId).
 */
export function parseAssetUrn(id: string, site: string): AssetUrn {
  const rest = id.slice(sitePrefix(site).length);
  if (rest === '') throw badRequest(`Asset.id names no asset after ${sitePrefix(site)}`);
  const segments = rest.split(':');
  if (segments.some((s) => s === '')) throw badRequest('Asset.id has an empty segment (two colons in a row, or a trailing colon)');

  if (site === EXPERIMENTERS_SITE) {
    if (segments.length < 3) {
      throw badRequest(`Asset.id of the experimenters site must be ${ENTITY_PREFIX}${EXPERIMENTERS_SITE}:<experimenterId>:<experimentId>:<name>`);
    }
    const [experimenter, experiment, ...name] = segments as [string, string, ...string[]];
    return urnOf(site, null, null, null, name.join(':'), experimenter, experiment);
  }
  const [a, b, c, ...more] = segments as [string, string | undefined, string | undefined, ...string[]];
  switch (segments.length) {
    case 1: return urnOf(site, null, null, null, a, null, null);
    case 2: return urnOf(site, a, null, null, b as string, null, null);
    case 3: return urnOf(site, a, b as string, null, c as string, null, null);
    default: return urnOf(site, a, b as string, c as string, more.join(':'), null, null);
  }
}

/** Written out field by field: every create and update parses an id, and spreading a template cost most of it. */
function urnOf(
  site: string, service: string | null, provider: string | null, group: string | null, name: string,
  experimenter: string | null, experiment: string | null,
): AssetUrn {
  return { site, service, provider, group, name, experimenter, experiment };
}
