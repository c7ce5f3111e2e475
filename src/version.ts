/** The platform's version, as package.json gives it (a unit test holds the two together). */
export const VERSION = '0.1.0';
