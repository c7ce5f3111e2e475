import type { Command } from 'commander';
import { authenticateClient } from '../../identity/clients.js';
import { KeyRing } from '../../identity/key-ring.js';
import { REALM_PATH } from '../../identity/routes.js';
import { ACCESS_TOKEN_TTL_S, issueAccessToken } from '../../identity/tokens.js';
import { findUserById } from '../../storage/repositories/principals.js';
import { clock, fail, print, withStore } from '../runtime.js';

export function identityCommands(program: Command): void {
  program.command('token <clientId> <secret>')
    .description("print an access token for a client (its service account's roles)")
    .option('--json', 'print the whole token response')
    .action(async (clientId: string, secret: string, o: { json?: boolean }) => {
      await withStore(async (store, config) => {
        const client = await authenticateClient(store, clientId, secret);
        const user = client && (await findUserById(store, client.serviceAccountUserId));
        if (!client || !user) fail('invalid client credentials', 1);
        const keys = new KeyRing(store, clock, ACCESS_TOKEN_TTL_S * 2000);
        await keys.load();
        const token = await issueAccessToken({ store, keys, clock, issuer: `${config.publicUrl}${REALM_PATH}` }, {
          user, clientId: client.id, serviceAccountOf: client.id, scope: 'profile email',
        });
        print(!!o.json, { access_token: token.accessToken, expires_in: token.expiresIn, token_type: 'Bearer' }, token.accessToken);
      });
    });

  const keys = program.command('keys').description('manage token signing keys');
  keys.command('rotate')
    .description('make a new signing key; tokens signed by the previous one stay valid until they expire')
    .option('--json', 'print {"kid"}')
    .action(async (o: { json?: boolean }) => {
      await withStore(async (store) => {
        const ring = new KeyRing(store, clock, ACCESS_TOKEN_TTL_S * 2000);
        await ring.load();
        const kid = await ring.rotate();
        print(!!o.json, { kid }, `new signing key ${kid}`);
      });
    });
}
