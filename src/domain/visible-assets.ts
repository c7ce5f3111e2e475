/**
 * The visibility rule (domain/visibility.ts) stated as a set, so that a listing
 * filters in the store instead of asset by asset: every city asset, plus the
 * experiment assets this caller may see.
 */
import type { Caller } from './caller.js';
import { isAdministrator, isPrivateToExperiment, type VisibilityScope } from './visibility.js';

export type VisibleAssets =
  /** Administrators see everything. */
  | { all: true }
  /** City assets, plus the experiment assets of this experimenter or of these experiments. */
  | { all: false; experimenter: string | null; experiments: string[] };

export function visibleAssets(caller: Caller | undefined): VisibleAssets {
  if (isAdministrator(caller)) return { all: true };
  if (!caller) return { all: false, experimenter: null, experiments: [] };
  const experiments = [...new Set(caller.experimentRoles.filter((r) => r.role === 'participant').map((r) => r.experiment))];
  return { all: false, experimenter: caller.subject !== '' ? caller.subject : null, experiments };
}

/** Does this set hold experiment assets at all (beyond the public city assets)? */
export function seesExperimentAssets(visible: VisibleAssets): boolean {
  return visible.all || visible.experimenter !== null || visible.experiments.length > 0;
}

/** Is an asset of this scope in the set? (the set form of canSee, for what is decided asset by asset, as notifications are) */
export function isVisibleIn(visible: VisibleAssets, scope: VisibilityScope): boolean {
  if (!isPrivateToExperiment(scope) || visible.all) return true;
  if (scope.experimenter !== null && scope.experimenter === visible.experimenter) return true;
  return scope.experiment !== null && visible.experiments.includes(scope.experiment);
}
