import type { Config } from './config.js';
import type { Clock } from './domain/clock.js';
import type { IpLocator } from './domain/geo-query.js';
import type { Timers } from './domain/timers.js';
import type { KeyRing } from './identity/key-ring.js';
import type { TokenIssuer } from './identity/tokens.js';
import type { TokenVerifier } from './identity/verifier.js';
import type { SubscriptionDelivery } from './services/subscription-delivery.js';
import type { Store } from './storage/store.js';

/** What every part of the app is built from: passed explicitly, never a global. */
export interface AppContext {
  config: Config;
  store: Store;
  clock: Clock;
  /** Repeating timers (the event stream's heartbeat); tests move them by hand. */
  timers: Timers;
  keys: KeyRing;
  tokens: TokenIssuer;
  verifier: TokenVerifier;
  /** Where an IP address is (IP_LOCATION_DB), for geo searches by `ip`. */
  locateIp: IpLocator;
  /** Delivers the notifications of subscriptions (src/services/subscription-delivery.ts). */
  delivery: SubscriptionDelivery;
}
