import type { Command } from 'commander';
import { AppError } from '../../domain/errors.js';
import { authenticateTokenClient } from '../../identity/client-auth.js';
import { clientCredentialsGrant } from '../../identity/grants.js';
import { KeyRing } from '../../identity/key-ring.js';
import { KeySealer } from '../../identity/key-sealing.js';
import type { Config } from '../../config.js';
import { issuerUrl } from '../../identity/routes.js';
import { ACCESS_TOKEN_TTL_S } from '../../identity/tokens.js';
import { clock, fail, print, withStore } from '../runtime.js';

/** Keys stay in the ring twice a token's lifetime after they retire (as the server keeps them). */
const KEY_RETENTION_MS = ACCESS_TOKEN_TTL_S * 2000;

const sealerOf = (config: Config): KeySealer => new KeySealer({ current: config.keySecret, previous: config.previousKeySecret });

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

export function identityCommands(program: Command): void {
  program.command('token <clientId> <secret>')
    .description("print an access token for a client (its service account's roles); secret '-' reads it from standard input")
    .option('--scope <scope>', 'space-separated scopes', 'profile email')
    .option('--json', 'print the whole token response')
    .action(async (clientId: string, secretArg: string, o: { json?: boolean; scope: string }) => {
      const secret = secretArg === '-' ? await readStdin() : secretArg;
      await withStore(async (store, config) => {
        const keys = new KeyRing(store, clock, KEY_RETENTION_MS, sealerOf(config));
        await keys.load();
        const issuer = { store, keys, clock, issuer: issuerUrl(config.publicUrl), audience: config.authAudience };
        let response;
        try {
          const client = await authenticateTokenClient(store, { id: clientId, secret, viaBasic: false });
          response = await clientCredentialsGrant(issuer, client, { scope: o.scope });
        } catch (error) {
          if (error instanceof AppError) fail(`invalid client credentials for ${clientId}`, 1);
          throw error;
        }
        print(!!o.json, response, response.access_token);
      });
    });

  const keys = program.command('keys').description('manage token signing keys');
  keys.command('rotate')
    .description('make a new signing key; tokens signed by the previous one stay valid until they expire')
    .option('--json', 'print {"kid"}')
    .action(async (o: { json?: boolean }) => {
      await withStore(async (store, config) => {
        const ring = new KeyRing(store, clock, KEY_RETENTION_MS, sealerOf(config));
        await ring.load();
        const kid = await ring.rotate();
        print(!!o.json, { kid }, `new signing key ${kid}; servers sign with it within a minute, earlier tokens stay valid until they expire`);
      });
    });
  keys.command('list')
    .description('list the signing keys (the current one signs; retired ones still verify)')
    .option('--json', 'print an array of {kid, alg, createdAt, retiredAt, current}')
    .action(async (o: { json?: boolean }) => {
      await withStore(async (store, config) => {
        const ring = new KeyRing(store, clock, KEY_RETENTION_MS, sealerOf(config));
        await ring.load();
        const list = ring.describe().map((k) => ({
          ...k, createdAt: new Date(k.createdAt).toISOString(), retiredAt: k.retiredAt === null ? null : new Date(k.retiredAt).toISOString(),
        }));
        print(!!o.json, list, list.map((k) => `${k.current ? '*' : ' '} ${k.kid}  ${k.alg}  created ${k.createdAt}${k.retiredAt ? `  retired ${k.retiredAt}` : ''}`).join('\n'));
      });
    });
}
