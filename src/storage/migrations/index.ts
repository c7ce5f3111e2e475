import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial.js';
import { identitySessions } from './0100-identity-sessions.js';
import { assetActivity } from './0200-asset-activity.js';
import { permissionsLookups } from './0300-permissions.js';
import { seedDictionaries } from './0400-seed-dictionaries.js';
import { readingsHistoryIndex } from './0500-readings-history-index.js';
import { cityPositions } from './0600-city-positions.js';
import { readingsWithoutAssetTime } from './0700-readings-without-asset-time.js';
import { cityPositionsSpgist } from './0800-city-positions-spgist.js';
import { changeLog } from './0900-changes.js';
import { clientSecretUnshown } from './1000-client-secret-unshown.js';
import { readingsObservedTime } from './1000-readings-observed-time.js';
import { subscriptions } from './1000-subscriptions.js';
import { siteHistoryRetention } from './1050-site-history-retention.js';
import { historyRollups } from './1100-history-rollups.js';
import { liveAssetsBySite } from './1200-live-assets-by-site.js';
import { readingsOffTimeIndex } from './1500-readings-off-time-index.js';
import { readingsClustered } from './1300-readings-clustered.js';
import { readingsCompact } from './1700-readings-compact.js';
import { readingsObservedInKey } from './1800-readings-observed-in-key.js';
import { readingBlocks } from './1900-reading-blocks.js';
import { signInAddresses } from './1400-sign-in-addresses.js';
import { rollupDays } from './1600-rollup-days.js';

/** One step of the schema, written for each store (a store's dialect picks its own: ../ports.ts). */
export interface StoreMigration {
  name: string;
  sqlite(db: Kysely<any>): Promise<void>;
  postgres(db: Kysely<any>): Promise<void>;
}

/** The step of a migration a store runs. */
export type MigrationStep = (migration: StoreMigration) => (db: Kysely<any>) => Promise<void>;

/** Every migration, in order. Never edit one that has shipped: add the next. */
export const MIGRATIONS: StoreMigration[] = [initial, identitySessions, assetActivity, permissionsLookups, seedDictionaries, readingsHistoryIndex, cityPositions, readingsWithoutAssetTime, cityPositionsSpgist, changeLog,
  clientSecretUnshown, readingsObservedTime, subscriptions, siteHistoryRetention, historyRollups, liveAssetsBySite, readingsClustered,
  signInAddresses, readingsOffTimeIndex, rollupDays, readingsCompact, readingsObservedInKey, readingBlocks];

export function migrationProvider(stepOf: MigrationStep): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const m of MIGRATIONS) out[m.name] = { up: stepOf(m) };
      return out;
    },
  };
}
