// Types of ./build-if-stale.mjs, for the tests that ask whether the build is current.

/** What the build writes; the oldest of them is compared with the newest input. */
export const OUTPUTS: string[];
/** What the build reads. */
export const INPUTS: string[];
/** Why the build must run in `root`, or undefined when its outputs are newer than every input. */
export function staleReason(root: string): string | undefined;
