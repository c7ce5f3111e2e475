/** Small, pure formatting helpers shared by the map, the lists and the asset panel. */

/** The platform's online window (ONLINE_WINDOW), read from its settings at start; 24 h until then. */
let onlineWindow = 24 * 60 * 60 * 1000;

export function setOnlineWindow(ms: number): void {
  if (Number.isFinite(ms) && ms > 0) onlineWindow = ms;
}

export function onlineWindowMs(): number {
  return onlineWindow;
}

/** `24 h`, `90 min`, `2 days`: the online window as a sentence says it. */
export function describeDuration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes % 1440 === 0 && minutes > 1440) return `${minutes / 1440} days`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

/** Values joined with ` · `, leaving out those that are missing (never printed as "null"). */
export function joinKnown(values: unknown[], separator = ' · '): string {
  return values.map(nonEmpty).filter((v): v is string => v !== null).join(separator);
}

/** Epoch ms from an epoch-ms number, an epoch-seconds number or an ISO string; null when unknown. */
export function toEpochMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string' && value && value !== 'null') {
    const t = Date.parse(value);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

export function isOnline(lastUpdate: unknown, now = Date.now()): boolean {
  const t = toEpochMs(lastUpdate);
  return t !== null && now - t <= onlineWindow;
}

export function timeAgo(value: unknown, now = Date.now()): string {
  const t = toEpochMs(value);
  if (t === null) return 'never';
  const s = Math.round((now - t) / 1000);
  if (s < 45) return 'just now';
  const units: [number, string][] = [[60, 'minute'], [3600, 'hour'], [86400, 'day'], [2592000, 'month'], [31536000, 'year']];
  let chosen: [number, string] = units[0]!;
  for (const u of units) if (Math.abs(s) >= u[0]) chosen = u;
  const n = Math.round(s / chosen[0]);
  return `${n} ${chosen[1]}${n === 1 ? '' : 's'} ago`;
}

export function formatDateTime(value: unknown): string {
  const t = toEpochMs(value);
  if (t === null) return '—';
  return new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** `urn:oc:entityType:iotdevice:noise` → `iotdevice noise`. */
export function typeLabel(type: string): string {
  const short = type.replace(/^urn:oc:entity[tT]ype:/, '');
  return short.replace(/:/g, ' ');
}

/**
 * The display name of an asset: its URN after site and service (`…:santander:environmental:fixed:462`
 * → `Fixed 462`), as the original observatory showed it. A bare number from `context.name` says less
 * than that, so it is only used when it is a real name.
 */
export function assetName(id: string, contextName?: string | null): string {
  const parts = id.split(':');
  // Experiment assets are `urn:oc:entity:experimenters:<experimenter>:<experiment>:<name>`.
  const skip = parts[3] === 'experimenters' ? 6 : 5;
  const tail = id.startsWith('urn:oc:entity:') && parts.length > skip ? parts.slice(skip) : [parts[parts.length - 1] || id];
  const fromUrn = tail.map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join(' ');
  const named = nonEmpty(contextName);
  return named && !/^\d+$/.test(named) && named !== tail[tail.length - 1] ? named : fromUrn;
}

export function nonEmpty(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const s = String(value);
  return s && s !== 'null' && s !== 'undefined' ? s : null;
}

export function formatNumber(n: number): string {
  return n.toLocaleString(undefined, { maximumFractionDigits: Math.abs(n) >= 100 ? 0 : 2 });
}

export function formatValue(value: string): string {
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? formatNumber(n) : value;
}

/** `1 asset`, `2,364 assets`. */
export function count(n: number, noun: string): string {
  return `${formatNumber(n)} ${noun}${n === 1 ? '' : 's'}`;
}

export function percent(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 100) : 0;
}

const UNIT_SYMBOLS: Record<string, string> = {
  bar: 'bar', centibar: 'cbar', decibel: 'dB', degreeAngle: '°', degreeCelsius: '°C', index: '',
  kilogram: 'kg', kilometrePerHour: 'km/h', kilometre: 'km', litrePer100Kilometres: 'L/100 km', litre: 'L',
  lumen: 'lm', lux: 'lx', metre: 'm', microgramPerCubicMetre: 'µg/m³', milligramPerCubicMetre: 'mg/m³',
  millimetrePerHour: 'mm/h', millivoltPerMetre: 'mV/m', percent: '%', revolutionPerMinute: 'rpm',
  vehiclePerMinute: 'veh/min', wattPerSquareMetre: 'W/m²',
};

/** `urn:oc:uom:degreeCelsius` → `°C`; unknown units are shown as written. */
export function unitSymbol(unit: string | null | undefined): string {
  if (!unit) return '';
  const name = unit.replace(/^urn:oc:uom:/, '');
  return UNIT_SYMBOLS[name] ?? name;
}

export function isNumeric(value: string): boolean {
  return value.trim() !== '' && Number.isFinite(Number(value));
}

export function isBoolean(value: string): boolean {
  return value === 'true' || value === 'false';
}

/** A reading as a number for charts: numbers as they are, booleans as 1 and 0, anything else null. */
export function chartValue(value: string): number | null {
  if (isBoolean(value)) return value === 'true' ? 1 : 0;
  return isNumeric(value) ? Number(value) : null;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
