import type { Kysely } from 'kysely';
import type { Database } from '../../src/storage/schema.js';

/** The readings table with each reading's attribute name and type spelled out (`names.term`, `types.term`). */
export const namedReadings = (db: Kysely<Database>) => db.selectFrom('readings')
  .innerJoin('reading_terms as names', 'names.id', 'readings.name_id')
  .innerJoin('reading_terms as types', 'types.id', 'readings.type_id');
