import type { Generated } from 'kysely';

/**
 * Row shapes of every table. Timestamps are epoch milliseconds (BIGINT) in both
 * stores so that comparisons, sorting and arithmetic behave the same everywhere.
 */
export interface Database {
  sites: SiteTable;
  asset_types: AssetTypeTable;
  attribute_types: AttributeTypeTable;
  assets: AssetTable;
  asset_attributes: AssetAttributeTable;
  readings: ReadingTable;
  reading_blocks: ReadingBlockTable;
  reading_terms: ReadingTermTable;
  users: UserTable;
  clients: ClientTable;
  client_redirect_uris: ClientRedirectUriTable;
  role_assignments: RoleAssignmentTable;
  signing_keys: SigningKeyTable;
  refresh_tokens: RefreshTokenTable;
  authorization_codes: AuthorizationCodeTable;
  asset_counts: AssetCountTable;
  asset_activity: AssetActivityTable;
  changes: ChangeTable;
  subscriptions: SubscriptionTable;
  site_retention: SiteRetentionTable;
  history_drops: HistoryDropsTable;
  reading_rollups: ReadingRollupTable;
  rollup_days: RollupDaysTable;
  sign_in_addresses: SignInAddressTable;
}

export interface SiteTable {
  id: string;
  name: string;
  type: string;
  latitude: number;
  longitude: number;
  country_code: string | null;
  country: string | null;
  city: string | null;
  /** Per-site asset quota; null means the platform default (SITE_QUOTA). */
  quota: number | null;
  created_at: number;
}

export interface AssetTypeTable {
  id: string;
  description: string;
}

export interface AttributeTypeTable {
  id: string;
  description: string;
  /** JSON array of {name, description, type}. */
  units: string;
}

export interface AssetTable {
  /** Surrogate integer key: the R*Tree and readings refer to it. */
  seq: Generated<number>;
  id: string;
  type: string;
  site: string;
  service: string | null;
  provider: string | null;
  grp: string | null;
  name: string;
  experimenter: string | null;
  experiment: string | null;
  /** JSON object of the NGSI v2 attributes (normalized form, without id/type). */
  attrs: string;
  latitude: number;
  longitude: number;
  /** TimeInstant of the latest update, epoch ms. */
  recorded_at: number;
  /** Platform receive time of the latest update, epoch ms. */
  last_reading_at: number;
  created_at: number;
  /** Set when the asset is deleted: it leaves discovery, its history stays. */
  deleted_at: number | null;
}

export interface AssetAttributeTable {
  asset_seq: number;
  name: string;
  type: string;
}

/**
 * A reading: its attribute's name and type are numbers into reading_terms.
 * SQLite stores the observation time as `observed_offset` (from the receive
 * time) and reads `observed_time` from it; PostgreSQL stores observed_time.
 */
export interface ReadingTable {
  seq: Generated<number>;
  asset_seq: number;
  name_id: number;
  recv_time: number;
  /** The TimeInstant the reading was sent with, epoch ms (its receive time for readings older than that column). */
  observed_time: number;
  type_id: number;
  attr_value: string;
}

/**
 * PostgreSQL only (migration 1900-reading-blocks): the readings of one series
 * and day, in receive order, each array one column of them. A reading's
 * receive time is first_time plus its offset, its seq first_seq plus its
 * offset; its observation time is its receive time plus its offset.
 */
export interface ReadingBlockTable {
  asset_seq: number;
  name_id: number;
  first_time: number;
  last_time: number;
  first_seq: number;
  n: number;
  time_offsets: number[];
  seq_offsets: number[];
  observed_offsets: number[];
  type_ids: number[];
  attr_values: string[];
}

/** The attribute names and types of readings, each stored once; never deleted, so an id once read stays what it is. */
export interface ReadingTermTable {
  id: Generated<number>;
  term: string;
}

export interface UserTable {
  id: string;
  username: string;
  email: string | null;
  password_hash: string | null;
  /** For a service-account user, the client it belongs to. */
  service_account_of: string | null;
  created_at: number;
}

export interface ClientTable {
  id: string;
  name: string | null;
  uri: string | null;
  /** SHA-256 digest (hex) of the secret; null for public clients. */
  secret_digest: string | null;
  service_account_user_id: string;
  created_at: number;
  /** 1 while a secret the platform generated has not been shown to anyone yet (the bootstrap client's, until its first start prints it). */
  secret_unshown: Generated<number>;
}

export interface ClientRedirectUriTable {
  client_id: string;
  position: number;
  uri: string;
}

export interface RoleAssignmentTable {
  user_id: string;
  role: string;
  /** '' when the role is not scoped to an experiment. */
  experiment: string;
  created_at: number;
}

export interface SigningKeyTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: number;
  /** When a newer key took over; the key still verifies until its tokens expire. */
  retired_at: number | null;
}

export interface RefreshTokenTable {
  id: string;
  user_id: string;
  client_id: string;
  scope: string;
  session_id: string;
  expires_at: number;
  revoked_at: number | null;
  created_at: number;
  /** The session ends then however often it is refreshed (null: no cap). */
  session_expires_at: number | null;
  /** When the person signed in, epoch ms (null for older rows). */
  auth_time: number | null;
}

export interface AuthorizationCodeTable {
  code_digest: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  nonce: string | null;
  expires_at: number;
  used_at: number | null;
}

/** Asset counters per (site, service, provider, type), kept up to date by every write. */
export interface AssetCountTable {
  site: string;
  service: string;
  provider: string;
  type: string;
  assets: number;
}

/**
 * Assets per (site, service, provider, type) and hourly bucket of their last
 * reading: online/offline counts without scans (src/domain/activity.ts).
 */
export interface AssetActivityTable {
  site: string;
  service: string;
  provider: string;
  type: string;
  /** Epoch ms floored to the hour. */
  hour: number;
  assets: number;
}

/** The change log: one row per committed asset write, in commit order (src/storage/change-log.ts). */
export interface ChangeTable {
  seq: Generated<number>;
  asset_id: string;
  asset_type: string;
  site: string;
  kind: 'create' | 'update' | 'delete';
  /** JSON object of the attributes the write set, with their new values (NGSI v2 normalized); `{}` for a delete. */
  attrs: string;
  /** The platform's time of the write, epoch ms. */
  committed_at: number;
}

/** NGSI v2 subscriptions and their delivery state (migration 1000-subscriptions). */
export interface SubscriptionTable {
  id: string;
  /** The owner's subject (`sub`). */
  owner: string;
  /** JSON of what the owner may see (src/domain/visible-assets.ts), taken when the subscription was written. */
  visible: string;
  /** JSON of the subscription as its owner gave it (src/domain/subscription.ts). */
  definition: string;
  status: 'active' | 'inactive' | 'oneshot';
  expires_at: number | null;
  created_at: number;
  /** The seq of the last change handled (delivered, or not matching). */
  cursor: number;
  times_sent: number;
  last_notification: number | null;
  last_success: number | null;
  last_success_code: number | null;
  last_failure: number | null;
  last_failure_reason: string | null;
  fails_counter: number;
  /** The process delivering it, and until when its lease holds (epoch ms). */
  lease_holder: string | null;
  lease_until: number | null;
}

/** A site's own retention of raw readings (src/domain/history-retention.ts); a site without a row follows HISTORY_RETENTION. */
export interface SiteRetentionTable {
  site: string;
  /** A duration such as `90d`, or `forever`. */
  retention: string;
}

/** One row (id 1): how many writes dropped expired history; it only grows. */
export interface HistoryDropsTable {
  id: number;
  drops: number;
}

/** One row: the day before which every day's rollup is built from its hours (src/storage/shared/reading-rollups.ts). */
export interface RollupDaysTable {
  id: number;
  built_before: number;
}

/**
 * The hourly and daily rollup of one series (asset, attribute): its numeric
 * readings by receive time, the hours kept current in the transaction that
 * writes them, each day built from its hours once it has ended.
 */
export interface ReadingRollupTable {
  asset_seq: number;
  attr_name: string;
  /** 3,600,000 (an hour) or 86,400,000 (a day). */
  period_ms: number;
  /** Start of the hour or day, epoch ms. */
  bucket: number;
  n: number;
  total: number;
  least: number;
  greatest: number;
  /** Receive time and value of the earliest reading (the first written, among those of that time). */
  first_time: number;
  first_value: number;
  /** Receive time and value of the latest reading (the last written, among those of that time). */
  last_time: number;
  last_value: number;
}

/** An address a client or user signed in from (src/domain/sign-in-addresses.ts). */
export interface SignInAddressTable {
  /** `client:<client id>` or `user:<user id>`. */
  principal: string;
  address: string;
  last_success_at: number;
}
