import type { Command } from 'commander';
import { ROLE_NAME } from '../../domain/roles.js';
import { registerClient } from '../../identity/clients.js';
import { registerUser } from '../../identity/users.js';
import { findClient, findUserByUsername } from '../../storage/repositories/principals.js';
import { clock, collect, fail, parseRoles, print, withStore } from '../runtime.js';

function checkRoles(roles: Array<{ role: string }>): void {
  for (const r of roles) if (!ROLE_NAME.test(r.role)) fail(`invalid role name: ${r.role}`);
}

export function clientCommands(program: Command): void {
  const client = program.command('client').description('manage clients');
  client.command('add <clientId>')
    .description('create a client (with its service account) and print its credentials once')
    .option('--role <role>', 'a role of its service account (repeatable)', collect, [])
    .option('--permission <tool:perm>', 'a tool permission of its service account (repeatable)', collect, [])
    .option('--redirect-uri <uri>', 'an allowed redirect URI (repeatable)', collect, [])
    .option('--name <name>', 'display name')
    .option('--json', 'print {"client_id","secret"}')
    .action(async (clientId: string, o: { role: string[]; permission: string[]; redirectUri: string[]; name?: string; json?: boolean }) => {
      if (!/^[A-Za-z0-9._-]{1,128}$/.test(clientId)) fail(`invalid client id: ${clientId} (letters, digits, . _ - only)`);
      for (const p of o.permission) if (!p.includes(':')) fail(`invalid permission: ${p} (expected tool:permission)`);
      const roles = parseRoles([...o.role, ...o.permission]);
      checkRoles(roles);
      await withStore(async (store) => {
        if (await findClient(store, clientId)) fail(`client already exists: ${clientId}`);
        const creds = await registerClient(store, clock, { clientId, name: o.name ?? null, roles, redirectUris: o.redirectUri });
        print(!!o.json, creds, `client_id: ${creds.client_id}\nsecret:    ${creds.secret}\n(the secret is not shown again)`);
      });
    });
}

export function userCommands(program: Command): void {
  const user = program.command('user').description('manage users');
  user.command('add <username>')
    .description('create a user')
    .requiredOption('--email <email>', 'e-mail address')
    .option('--password <password>', 'password (for the password grant and the login page)')
    .option('--role <role[@experiment]>', 'a role (repeatable); participant needs @experiment', collect, [])
    .option('--json', 'print {"id","name"}')
    .action(async (username: string, o: { email: string; password?: string; role: string[]; json?: boolean }) => {
      if (!/^[^\s@]+@[^\s@]+$/.test(o.email)) fail(`invalid e-mail address: ${o.email}`);
      if (!/^[\w.@+-]{1,128}$/.test(username)) fail(`invalid username: ${username}`);
      const roles = parseRoles(o.role);
      checkRoles(roles);
      for (const r of roles) if (r.role === 'participant' && !r.experiment) fail('the participant role needs an experiment: --role participant@<experimentId>');
      await withStore(async (store) => {
        if (await findUserByUsername(store, username)) fail(`user already exists: ${username}`);
        const created = await registerUser(store, clock, { username, email: o.email, password: o.password, roles });
        print(!!o.json, created, `user ${created.name} created with id ${created.id}`);
      });
    });
}
