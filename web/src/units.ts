import { unitSymbol } from './format';
import type { Attribute } from './types';

/**
 * The unit of an attribute: its `unit` metadata when the site sent one, else the unit the OrganiCity
 * attribute-type dictionary gives its type (sites rarely sent units; the type names them). Types
 * whose dictionary unit is a bare index are left without one.
 */

const DICTIONARY: Record<string, string> = {
  batterylevel: 'percent',
  'chemicalagentatmosphericconcentration:airparticles': 'milligramPerCubicMetre',
  'chemicalagentatmosphericconcentration:co': 'milligramPerCubicMetre',
  'chemicalagentatmosphericconcentration:no2': 'microgramPerCubicMetre',
  'chemicalagentatmosphericconcentration:o3': 'microgramPerCubicMetre',
  'chemicalagentatmosphericconcentration:so2': 'microgramPerCubicMetre',
  'direction:azimuth': 'degreeAngle',
  'filllevel:wastecontainer': 'percent',
  'fuelconsumption:instantaneous': 'litrePer100Kilometres',
  'fuelconsumption:total': 'litre',
  illuminance: 'lux',
  luminosity: 'lumen',
  mass: 'kilogram',
  'mileage:distancetoservice': 'kilometre',
  'mileage:total': 'metre',
  odometer: 'kilometre',
  'position:altitude': 'metre',
  atmosphericpressure: 'hPa',
  rainfall: 'millimetrePerHour',
  relativehumidity: 'percent',
  humidity: 'percent',
  roadoccupancy: 'percent',
  'rotationalspeed:engine': 'revolutionPerMinute',
  soilmoisturetension: 'centibar',
  solarradiation: 'wattPerSquareMetre',
  'soundpressurelevel:ambient': 'decibel',
  'speed:average': 'kilometrePerHour',
  'speed:limit': 'kilometrePerHour',
  windspeed: 'kilometrePerHour',
  winddirection: 'degreeAngle',
  temperature: 'degreeCelsius',
  'temperature:ambient': 'degreeCelsius',
  'temperature:device': 'degreeCelsius',
  'temperature:engine': 'degreeCelsius',
  'temperature:soil': 'degreeCelsius',
  'temperature:wastecontainer': 'degreeCelsius',
};

const short = (s: string): string => s.replace(/^urn:oc:attribute[tT]ype:/, '').toLowerCase();

export function unitOf(attr: Pick<Attribute, 'name' | 'type' | 'metadata'>): string {
  const meta = attr.metadata?.find((m) => ['unit', 'unitcode'].includes(m.name.toLowerCase()));
  if (meta?.value) return unitSymbol(meta.value);
  const known = DICTIONARY[short(attr.type ?? '')] ?? DICTIONARY[short(attr.name)];
  return known ? unitSymbol(known) : '';
}
