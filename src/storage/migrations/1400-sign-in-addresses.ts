import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * The addresses each client or user signed in from, with the time of the last success at each
 * (src/domain/sign-in-addresses.ts): they exempt a site or person from the back-off that other
 * addresses' failures raise, after a restart and in every server process alike.
 */
export const signInAddresses: StoreMigration = {
  name: '1400-sign-in-addresses',
  sqlite: (db) => createTable(db),
  postgres: (db) => createTable(db),
};

async function createTable(db: Parameters<StoreMigration['sqlite']>[0]): Promise<void> {
  await sql`create table sign_in_addresses (
    principal text not null,
    address text not null,
    last_success_at bigint not null,
    primary key (principal, address)
  )`.execute(db);
}
