import { OIDC_PATH } from './identity/paths.js';

export interface WelcomeFacts {
  publicUrl: string;
  /** The secret of `opencity-admin` when this start created it (the store's first start). */
  generatedAdminSecret: string | undefined;
  /** opencity-admin exists, but the secret generated for it was never shown. */
  adminSecretNeverShown?: boolean;
}

/** What to do when the admin secret generated on the first start was never shown: printed on every start until it is reset. */
export const ADMIN_SECRET_RECOVERY = [
  'The bootstrap client opencity-admin exists, but the secret generated for it was never shown (the first',
  'start ended before printing it). Give it a new one, printed once, with:',
  '  npx opencity client reset-secret opencity-admin',
];

/**
 * What a person who just ran `npm start` needs, printed once on a terminal:
 * where things are, what the admin secret is for, and what to run next.
 */
export function welcomeText({ publicUrl, generatedAdminSecret, adminSecretNeverShown = false }: WelcomeFacts): string {
  const lines = [
    '',
    `OpenCity is serving on ${publicUrl}`,
    '',
    `  map             ${publicUrl}/`,
    `  API documents   ${publicUrl}/docs`,
    `  token endpoint  ${publicUrl}${OIDC_PATH}/token`,
    '',
  ];
  if (generatedAdminSecret !== undefined) {
    lines.push(
      'The bootstrap client opencity-admin was created. Keep this secret now; it is not shown again.',
      '  client_id: opencity-admin',
      `  secret:    ${generatedAdminSecret}`,
      'It holds every accounts-permissions permission: with a token for it you manage roles, users and',
      'clients through /permissions. Sites and their clients are added with the opencity command.',
      '',
      'Next, in a second terminal, add a site (README, "What you do next"):',
      '  npx opencity site add santander --name Santander --lat 43.4623 --lon -3.80998 --json',
      '',
    );
  }
  if (adminSecretNeverShown) lines.push(...ADMIN_SECRET_RECOVERY, '');
  lines.push('Press Ctrl+C to stop. Logs follow (LOG_FORMAT=json for machine-readable lines).', '');
  return lines.join('\n');
}

/** The public URL with the port the server got, when it asked for any free one (`PORT=0`). */
export function servedUrl(publicUrl: string, boundPort: number | undefined): string {
  return boundPort !== undefined && /:0$/.test(publicUrl) ? publicUrl.replace(/:0$/, `:${boundPort}`) : publicUrl;
}
