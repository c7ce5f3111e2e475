/** A TimeInstant attribute as a site sends it. */
export interface TimeInstantAttribute {
  type: string;
  value: string;
}

/**
 * What `make` makes with the TimeInstant of the current second, made again
 * when the second changes: a sensor sends a reading when it reads it, so a
 * load's readings are received within moments of their TimeInstant (not, say,
 * years after, which would make each of them a late one). Bodies are made a
 * second's worth at a time: the load generator shares the machine's cores.
 */
export function perSecond<T>(make: (timeInstant: TimeInstantAttribute) => T): () => T {
  let second = Number.NaN;
  let made: T | undefined;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    if (now !== second || made === undefined) {
      second = now;
      made = make({ type: 'urn:oc:attributeType:ISO8601', value: new Date(now * 1000).toISOString() });
    }
    return made;
  };
}

/** The TimeInstant of the current second. */
export const currentTimeInstant = perSecond((timeInstant) => timeInstant);
