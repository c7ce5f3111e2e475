import { ConfigError, loadConfig, type Config } from '../config.js';
import { systemClock } from '../domain/clock.js';
import { Store } from '../storage/store.js';

/** A usage or input mistake: printed as one line, exit code 2. */
export class UsageError extends Error {}

/** Whether the command line asked for JSON (then a failure is one JSON line too). */
const wantsJson = (): boolean => process.argv.includes('--json');

/** Prints one line on standard error and exits: 2 for a usage mistake, 1 for a refused or failed action. */
export function fail(message: string, code = 2): never {
  process.stderr.write(wantsJson() ? `${JSON.stringify({ error: message })}\n` : `opencity: ${message}\n`);
  process.exit(code);
}

export function print(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** Runs a command against the store DATABASE_URL names (migrated first), then closes it. */
export async function withStore<T>(fn: (store: Store, config: Config) => Promise<T>, options: { migrate?: boolean } = {}): Promise<T> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(`configuration error: ${error.message}`);
    throw error;
  }
  const store = Store.open(config.databaseUrl, { changeLog: config.changeLog, timeoutMs: config.storeTimeoutMs });
  try {
    if (options.migrate !== false) await store.migrate();
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

export const clock = systemClock;

/** `--role R` may be given several times; `R@experiment` scopes it. */
export function parseRoles(values: string[]): Array<{ role: string; experiment: string | null }> {
  return values.map((v) => {
    const at = v.indexOf('@');
    return at < 0 ? { role: v, experiment: null } : { role: v.slice(0, at), experiment: v.slice(at + 1) };
  });
}

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
