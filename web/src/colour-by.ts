import { type Api, ApiError, isAbort } from './api';
import { NO_VALUE, STEPS, type Scale, colourClassOf, numericValue, scaleOf } from './colour-scale';
import { h } from './dom';
import { formatNumber } from './format';
import { notify } from './notify';
import { unitOf } from './units';

/**
 * The "Colour by" control of the side panel: an attribute whose current value colours the markers,
 * with a legend of the scale's range. The current values come from the discovery metadata search
 * (every asset carrying the attribute, any site), once per attribute and for a minute.
 */

/** Attributes the demo and the OrganiCity sites report most; attributes of assets opened are added. */
const COMMON = [
  'temperature:ambient', 'relativeHumidity', 'soundPressureLevel:ambient', 'illuminance', 'batteryLevel',
  'presenceState:parking', 'presenceState:people', 'availableBikes', 'trafficIntensity', 'roadOccupancy', 'speed:average',
  'fillLevel:wasteContainer', 'chemicalAgentAtmosphericConcentration:NO2', 'soilMoistureTension',
];
const MAX_PAGES = 5;
const FRESH_MS = 60_000;

export class ColourBy {
  private values: Map<string, number> | null = null;
  private boolean = false;
  private fetched = new Map<string, { at: number; values: Map<string, number>; boolean: boolean }>();
  private loading: AbortController | null = null;
  private readonly known = new Set(COMMON);
  private scale: Scale | null = null;

  constructor(
    private readonly select: HTMLSelectElement,
    private readonly legend: HTMLElement,
    private readonly api: Api,
    /** The attribute changed, or its values arrived. */
    private readonly onChange: () => void,
  ) {
    this.fill();
    select.addEventListener('change', () => void this.choose(select.value || null));
  }

  get attribute(): string | null {
    return this.select.value || null;
  }

  /** Attributes met in opened assets become choices too. */
  note(names: Iterable<string>): void {
    const before = this.known.size;
    for (const n of names) this.known.add(n);
    if (this.known.size !== before) this.fill();
  }

  private fill(): void {
    const current = this.select.value;
    this.select.replaceChildren(h('option', { value: '' }, 'Asset type'),
      ...[...this.known].sort((a, b) => a.localeCompare(b)).map((n) => h('option', { value: n }, n)));
    this.select.value = current;
  }

  async choose(attr: string | null): Promise<void> {
    this.loading?.abort();
    if (attr && !this.known.has(attr)) this.note([attr]);
    this.select.value = attr ?? '';
    if (!attr) {
      this.values = null;
      this.onChange();
      return;
    }
    const cached = this.fetched.get(attr);
    if (cached && Date.now() - cached.at < FRESH_MS) {
      this.values = cached.values;
      this.boolean = cached.boolean;
      this.onChange();
      return;
    }
    const ctrl = new AbortController();
    this.loading = ctrl;
    this.legend.dataset.state = 'loading';
    try {
      const raw = await this.api.currentValues(attr, MAX_PAGES, ctrl.signal);
      if (ctrl.signal.aborted) return;
      const values = new Map<string, number>();
      let booleans = 0;
      for (const [id, v] of raw) {
        const n = numericValue(v);
        if (n === null) continue;
        values.set(id, n);
        if (typeof v === 'boolean' || v === 'true' || v === 'false') booleans++;
      }
      this.boolean = values.size > 0 && booleans === values.size;
      this.values = values;
      this.fetched.set(attr, { at: Date.now(), values, boolean: this.boolean });
      this.onChange();
    } catch (err) {
      if (isAbort(err)) return;
      notify(err instanceof ApiError ? `The values to colour by could not be loaded. ${err.message}` : 'The values to colour by could not be loaded.');
      this.values = null;
      this.select.value = '';
      this.onChange();
    }
  }

  /** The colour class of each asset in view (null when colouring by type), and the legend drawn for them. */
  classes(ids: string[]): Map<string, string> | null {
    const attr = this.attribute;
    if (!attr || !this.values) {
      this.legend.replaceChildren();
      this.legend.hidden = true;
      this.scale = null;
      return null;
    }
    const values = this.values;
    const present: number[] = [];
    for (const id of ids) {
      const v = values.get(id);
      if (v !== undefined) present.push(v);
    }
    this.scale = scaleOf(present, this.boolean);
    const out = new Map<string, string>();
    for (const id of ids) out.set(id, colourClassOf(values.get(id), this.scale));
    this.drawLegend(attr, present.length, ids.length - present.length);
    return out;
  }

  private drawLegend(attr: string, withValue: number, without: number): void {
    const unit = unitOf({ name: attr, type: '', metadata: [] });
    const suffix = unit ? ` ${unit}` : '';
    const s = this.scale;
    this.legend.hidden = false;
    this.legend.dataset.state = 'ready';
    this.legend.dataset.min = s ? String(s.min) : '';
    this.legend.dataset.max = s ? String(s.max) : '';
    const steps = s?.boolean ? [0, STEPS - 1] : Array.from({ length: STEPS }, (_, i) => i);
    const parts: (HTMLElement | null)[] = [
      h('p', { class: 'colour-title' }, attr),
      s ? h('div', { class: 'colour-ramp', 'aria-hidden': 'true' }, ...steps.map((i) => h('span', { class: `v${i}` }))) : null,
      s ? h('p', { class: 'colour-range', 'data-testid': 'colour-range' },
        h('span', {}, s.boolean ? 'false' : `${formatNumber(s.min)}${suffix}`),
        h('span', {}, s.boolean ? 'true' : `${formatNumber(s.max)}${suffix}`)) : h('p', { class: 'hint' }, 'No asset in view has this attribute.'),
      without ? h('p', { class: 'colour-none' }, h('span', { class: `dot ${NO_VALUE}`, 'aria-hidden': 'true' }), `${formatNumber(without)} without it`) : null,
    ];
    this.legend.replaceChildren(...parts.filter((el): el is HTMLElement => el !== null));
    this.legend.setAttribute('aria-label', s
      ? `Markers coloured by ${attr}: ${formatNumber(withValue)} with a value from ${formatNumber(s.min)} to ${formatNumber(s.max)}${suffix}; ${formatNumber(without)} without it, in grey.`
      : `Markers coloured by ${attr}: no asset in view has it.`);
  }
}
