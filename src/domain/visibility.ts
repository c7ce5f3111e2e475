/**
 * Who may see an asset (DESIGN.md, "Visibility"), in discovery and datasource alike.
 * City assets are public. Assets of the experimenters site belong to one
 * experiment: only its experimenter, the participants of that experiment and
 * administrators see them; to everyone else they do not exist (404, never 403,
 * so that their existence is not revealed).
 */
import type { Caller } from './caller.js';
import { notFound } from './errors.js';
import { canonicalRole } from './roles.js';
import { EXPERIMENTERS_SITE } from './urn.js';

/** The site whose assets are private to an experiment (defined with the URN rules). */
export { EXPERIMENTERS_SITE };

/** What visibility depends on: the asset's site and, for experiment assets, its owners. */
export interface VisibilityScope {
  site: string;
  /** The experimenter's user id (the `sub` of their tokens); null for city assets. */
  experimenter: string | null;
  experiment: string | null;
}

export function isPrivateToExperiment(scope: VisibilityScope): boolean {
  return scope.site === EXPERIMENTERS_SITE;
}

export function isAdministrator(caller: Caller | undefined): boolean {
  return caller?.roles.some((r) => canonicalRole(r) === 'administrator') ?? false;
}

export function canSee(caller: Caller | undefined, scope: VisibilityScope): boolean {
  if (!isPrivateToExperiment(scope)) return true;
  if (!caller) return false;
  if (isAdministrator(caller)) return true;
  if (scope.experimenter !== null && caller.subject !== '' && caller.subject === scope.experimenter) return true;
  return scope.experiment !== null
    && caller.experimentRoles.some((r) => r.role === 'participant' && r.experiment === scope.experiment);
}

/**
 * The asset a request names, once looked up: unknown (`undefined`) and invisible to
 * the caller answer the same 404, so that a private asset's existence is not revealed.
 */
export function visibleOrNotFound<A extends VisibilityScope>(caller: Caller | undefined, id: string, asset: A | undefined): A {
  if (!asset || !canSee(caller, asset)) throw notFound(`The asset '${id}' has not been found`);
  return asset;
}
