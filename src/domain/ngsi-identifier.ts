/**
 * NGSI v2 identifier rules (entity id, entity type, attribute names), as Orion
 * enforces them: printable ASCII, no whitespace, none of the characters Orion
 * forbids (they break URLs, queries or its storage), at most 256 characters.
 */
export const MAX_IDENTIFIER_LENGTH = 256;

const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;
const FORBIDDEN = /[<>"'=;()&?/#]/;

export const FORBIDDEN_CHARACTERS_TEXT = `whitespace, control or non-ASCII characters, or any of < > " ' = ; ( ) & ? / #`;

export type IdentifierProblem = 'empty' | 'too-long' | 'forbidden-characters';

export function identifierProblem(value: string): IdentifierProblem | undefined {
  if (value.length === 0) return 'empty';
  if (value.length > MAX_IDENTIFIER_LENGTH) return 'too-long';
  if (!PRINTABLE_ASCII.test(value) || FORBIDDEN.test(value)) return 'forbidden-characters';
  return undefined;
}

/** A human description of the problem, naming what was checked (e.g. "Asset.id"). */
export function describeIdentifierProblem(what: string, problem: IdentifierProblem): string {
  switch (problem) {
    case 'empty': return `${what} must not be empty`;
    case 'too-long': return `${what} is longer than ${MAX_IDENTIFIER_LENGTH} characters`;
    case 'forbidden-characters': return `${what} contains forbidden characters (${FORBIDDEN_CHARACTERS_TEXT})`;
  }
}
