import type { Command } from 'commander';
import { passwordProblem } from '../../domain/password.js';
import { ROLE_NAME } from '../../domain/roles.js';
import { reservedSiteClientMessage, siteOfReservedClientId } from '../../domain/site-client.js';
import { ADMIN_CLIENT_ID, OBSERVATORY_CLIENT_ID } from '../../identity/bootstrap.js';
import { registerClient } from '../../identity/clients.js';
import { hashPassword, newSecret, secretDigest } from '../../identity/secrets.js';
import { registerUser } from '../../identity/users.js';
import {
  listClientSummaries, listUserSummaries, removeClientRecord, replaceClientSecret, replaceUserPassword,
} from '../../storage/repositories/principal-admin.js';
import { findClient, findUserByUsername } from '../../storage/repositories/principals.js';
import { findSite } from '../../storage/repositories/sites.js';
import { clock, collect, fail, parseRoles, print, withStore } from '../runtime.js';

const rolesText = (roles: Array<{ role: string; experiment: string | null }>): string =>
  roles.map((r) => (r.experiment ? `${r.role}@${r.experiment}` : r.role)).join(', ') || 'no roles';

async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '');
}

function checkPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem) fail(problem);
}

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
        const site = siteOfReservedClientId(clientId);
        if (site !== undefined && !(await findSite(store, site))) fail(reservedSiteClientMessage(clientId, site));
        const creds = await registerClient(store, clock, { clientId, name: o.name ?? null, roles, redirectUris: o.redirectUri });
        print(!!o.json, creds, `client_id: ${creds.client_id}\nsecret:    ${creds.secret}\n(the secret is not shown again)`);
      });
    });

  client.command('list')
    .description('list the clients with the roles of their service accounts')
    .option('--json', 'print an array of {id, name, confidential, roles, createdAt}')
    .action(async (o: { json?: boolean }) => {
      await withStore(async (store) => {
        const clients = await listClientSummaries(store);
        print(!!o.json, clients, clients.map((c) => `${c.id}${c.name ? `  ${c.name}` : ''}${c.confidential ? '' : '  (public)'}  ${rolesText(c.roles)}`).join('\n'));
      });
    });

  client.command('reset-secret <clientId>')
    .description('give a client a new secret, printed once; the old one stops working at once')
    .option('--json', 'print {"client_id","secret"}')
    .action(async (clientId: string, o: { json?: boolean }) => {
      await withStore(async (store) => {
        const found = await findClient(store, clientId);
        if (!found) fail(`no client ${clientId}`, 1);
        if (found.secretDigest === null) fail(`client ${clientId} is public: it has no secret to reset`, 1);
        const secret = newSecret();
        if (!(await replaceClientSecret(store, clientId, secretDigest(secret)))) fail(`no client ${clientId}`, 1);
        const note = clientId === ADMIN_CLIENT_ID ? '\n(a server started with OPENCITY_ADMIN_SECRET sets that secret again when it starts)' : '';
        print(!!o.json, { client_id: clientId, secret }, `client_id: ${clientId}\nsecret:    ${secret}\n(the secret is not shown again; the old one no longer works)${note}`);
      });
    });

  client.command('remove <clientId>')
    .description('remove a client with its service account; its tokens stay valid until they expire (5 minutes at most)')
    .option('--json', 'print {"client_id","removed"}')
    .action(async (clientId: string, o: { json?: boolean }) => {
      if (clientId === ADMIN_CLIENT_ID || clientId === OBSERVATORY_CLIENT_ID) fail(`${clientId} is a bootstrap client: the server needs it (reset its secret instead)`, 1);
      await withStore(async (store) => {
        if (!(await removeClientRecord(store, clientId))) fail(`no client ${clientId}`, 1);
        print(!!o.json, { client_id: clientId, removed: true }, `client ${clientId} removed`);
      });
    });
}

export function userCommands(program: Command): void {
  const user = program.command('user').description('manage users');
  user.command('add <username>')
    .description('create a user')
    .requiredOption('--email <email>', 'e-mail address')
    .option('--password <password>', 'password, at least 8 characters (for the password grant and the login page)')
    .option('--role <role[@experiment]>', 'a role (repeatable); participant needs @experiment', collect, [])
    .option('--json', 'print {"id","name"}')
    .action(async (username: string, o: { email: string; password?: string; role: string[]; json?: boolean }) => {
      if (!/^[^\s@]+@[^\s@]+$/.test(o.email)) fail(`invalid e-mail address: ${o.email}`);
      if (!/^[\w.@+-]{1,128}$/.test(username)) fail(`invalid username: ${username}`);
      const roles = parseRoles(o.role);
      checkRoles(roles);
      for (const r of roles) if (r.role === 'participant' && !r.experiment) fail('the participant role needs an experiment: --role participant@<experimentId>');
      if (o.password !== undefined) checkPassword(o.password);
      await withStore(async (store) => {
        if (await findUserByUsername(store, username)) fail(`user already exists: ${username}`);
        const created = await registerUser(store, clock, { username, email: o.email, password: o.password, roles });
        print(!!o.json, created, `user ${created.name} created with id ${created.id}`);
      });
    });

  user.command('list')
    .description('list the people (not service accounts) with their roles')
    .option('--json', 'print an array of {id, username, email, roles, createdAt}')
    .action(async (o: { json?: boolean }) => {
      await withStore(async (store) => {
        const users = await listUserSummaries(store);
        print(!!o.json, users, users.length === 0 ? 'no users' : users.map((u) => `${u.username}  ${u.email ?? ''}  ${rolesText(u.roles)}  (id ${u.id})`).join('\n'));
      });
    });

  user.command('passwd <username>')
    .description("set a person's password; without --password a new one is made and printed once")
    .option('--password <password>', "the new password, at least 8 characters; '-' reads it from standard input")
    .option('--json', 'print {"name","password"} (the password only when it was made here)')
    .action(async (username: string, o: { password?: string; json?: boolean }) => {
      const given = o.password === '-' ? await readStdinLine() : o.password;
      if (given !== undefined) checkPassword(given);
      const password = given ?? newSecret().slice(0, 20);
      await withStore(async (store) => {
        if (!(await replaceUserPassword(store, username, await hashPassword(password)))) fail(`no user ${username}`, 1);
        const made = given === undefined;
        print(!!o.json, made ? { name: username, password } : { name: username },
          made ? `password of ${username} set to: ${password}\n(it is not shown again)` : `password of ${username} changed`);
      });
    });
}
