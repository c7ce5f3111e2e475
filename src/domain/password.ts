/** The shortest password a person may be given (NIST SP 800-63B's floor for chosen secrets). */
export const MIN_PASSWORD_LENGTH = 8;

/** Why a password is refused, or undefined when it is accepted. Length counts characters, not bytes. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `the password is too short: at least ${MIN_PASSWORD_LENGTH} characters, got ${length}`;
  return undefined;
}
