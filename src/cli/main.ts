#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { environmentHelp } from '../config.js';
import { serve } from '../main.js';
import { VERSION } from '../version.js';
import { demoCommands } from './commands/demo.js';
import { identityCommands } from './commands/identity.js';
import { clientCommands, userCommands } from './commands/principals.js';
import { siteCommands } from './commands/sites.js';
import { fail, withStore } from './runtime.js';

const program = new Command('opencity')
  .description('OpenCity, the open urban data platform. Every command honours DATABASE_URL.')
  .version(VERSION, '-V, --version', 'print the version')
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

program.command('serve').description('serve the platform, configured by the environment below')
  .option('--json', 'log JSON lines, as LOG_FORMAT=json does')
  .addHelpText('after', `\nEnvironment (every variable is optional):\n${environmentHelp()}\n`)
  .action((o: { json?: boolean }) => serve(o.json ? { ...process.env, LOG_FORMAT: 'json' } : process.env));
program.command('migrate').description('create or update the schema of the store').option('--json', 'print the applied migrations')
  .action(async (o: { json?: boolean }) => {
    await withStore(async (store) => {
      const applied = await store.migrate();
      process.stdout.write(o.json ? `${JSON.stringify({ applied })}\n` : `schema up to date (${store.name}); applied: ${applied.join(', ') || 'nothing new'}\n`);
    }, { migrate: false });
  });
siteCommands(program);
clientCommands(program);
userCommands(program);
identityCommands(program);
demoCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  fail((error as Error).message, 1);
}
