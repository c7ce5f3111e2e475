import { h } from './dom';
import { PRESETS, type Preset } from './view-state';

/** The chart's time range: presets (last 24 h … last year) or any from/to, picked or dragged on the chart. */

export interface TimeRange {
  preset: Preset | null;
  /** Epoch ms. */
  from: number;
  to: number;
}

const HOUR = 3600_000;
export const PRESET_SPAN: Record<Preset, number> = { '24h': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR, '1y': 365 * 24 * HOUR };
const PRESET_LABEL: Record<Preset, string> = { '24h': '24 h', '7d': '7 days', '30d': '30 days', '1y': 'Year' };

export function presetRange(preset: Preset, now = Date.now()): TimeRange {
  return { preset, from: now - PRESET_SPAN[preset], to: now };
}

/** The shortest preset that still holds `lastReading`, so that a quiet asset opens on a range showing its data. */
export function firstPreset(lastReading: number | null, now = Date.now()): Preset {
  const age = lastReading === null ? 0 : now - lastReading;
  return PRESETS.find((p) => age <= PRESET_SPAN[p]) ?? '1y';
}

/** `2026-11-26T07:30` in the browser's time zone, as datetime-local inputs show it. */
export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function fromLocalInput(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(text)) return null;
  const t = new Date(text).getTime();
  return Number.isNaN(t) ? null : t;
}

let uid = 0;

export class RangePicker {
  readonly element: HTMLElement;
  private readonly fromInput: HTMLInputElement;
  private readonly toInput: HTMLInputElement;
  private readonly radios = new Map<Preset, HTMLInputElement>();

  constructor(private range: TimeRange, private readonly onChange: (range: TimeRange) => void) {
    const id = `range-${++uid}`;
    const presets = h('fieldset', { class: 'segmented compact', 'data-testid': 'chart-range' },
      h('legend', { class: 'visually-hidden' }, 'Time range'),
      ...PRESETS.flatMap((p) => {
        const radio = h('input', {
          type: 'radio', name: `${id}-preset`, id: `${id}-${p}`, value: p, 'data-testid': `chart-range-${p}`,
          onchange: () => this.choose(presetRange(p)),
        });
        this.radios.set(p, radio);
        return [radio, h('label', { for: `${id}-${p}` }, PRESET_LABEL[p])];
      }));
    this.fromInput = h('input', { type: 'datetime-local', id: `${id}-from`, 'data-testid': 'chart-from' });
    this.toInput = h('input', { type: 'datetime-local', id: `${id}-to`, 'data-testid': 'chart-to' });
    const apply = (): void => {
      const from = fromLocalInput(this.fromInput.value);
      const to = fromLocalInput(this.toInput.value);
      if (from === null || to === null) return;
      if (from >= to) {
        this.toInput.setCustomValidity('The end must come after the start.');
        this.toInput.reportValidity();
        return;
      }
      this.toInput.setCustomValidity('');
      this.choose({ preset: null, from, to });
    };
    this.fromInput.addEventListener('change', apply);
    this.toInput.addEventListener('change', apply);
    this.element = h('div', { class: 'range-picker' }, presets,
      h('div', { class: 'range-custom' },
        h('label', { for: `${id}-from` }, 'From'), this.fromInput,
        h('label', { for: `${id}-to` }, 'to'), this.toInput));
    this.show();
  }

  get value(): TimeRange {
    return this.range;
  }

  /** Sets the range without telling (a zoom on the chart already knows). */
  set(range: TimeRange): void {
    this.range = range;
    this.show();
  }

  private choose(range: TimeRange): void {
    this.set(range);
    this.onChange(range);
  }

  private show(): void {
    for (const [p, radio] of this.radios) radio.checked = p === this.range.preset;
    this.fromInput.value = toLocalInput(this.range.from);
    this.toInput.value = toLocalInput(this.range.to);
  }
}
