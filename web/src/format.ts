/** Small, pure formatting helpers shared by the map, the lists and the asset panel. */

export const ONLINE_WINDOW_MS = 24 * 60 * 60 * 1000;

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
  return t !== null && now - t <= ONLINE_WINDOW_MS;
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

/** The short name of an asset: the last URN segment. */
export function assetName(id: string, contextName?: string | null): string {
  if (contextName && contextName !== 'null') return contextName;
  const parts = id.split(':');
  return parts[parts.length - 1] || id;
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

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
