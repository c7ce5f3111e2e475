import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';

export interface StoreMigration {
  name: string;
  up(db: Kysely<any>, dialect: 'sqlite' | 'postgres'): Promise<void>;
}

/** Every migration, in order. Never edit one that has shipped: add the next. */
export const MIGRATIONS: StoreMigration[] = [initial];

export function migrationProvider(dialect: 'sqlite' | 'postgres'): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of MIGRATIONS) out[m.name] = { up: (db) => m.up(db, dialect) };
      return out;
    },
  };
}
