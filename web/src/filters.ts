import { h } from './dom';
import { formatNumber, isOnline, typeLabel } from './format';
import type { AssetType, Category, FeatureProperties, Site } from './types';

export type Status = '' | 'online' | 'offline';

export interface FilterState {
  site: string;
  service: string;
  provider: string;
  type: string;
  status: Status;
}

export const EMPTY_FILTERS: FilterState = { site: '', service: '', provider: '', type: '', status: '' };

interface Catalog {
  sites: Site[];
  services: Category[];
  providers: Category[];
  types: AssetType[];
}

/** A service or provider is named by its id; a purely numeric id (as in the documented example) defers to `type`. */
export function categoryName(c: Category): string {
  return /^\d+$/.test(String(c.id)) && c.type ? c.type : String(c.id);
}

const same = (a: string | null | undefined, b: string): boolean => (a ?? '').toLowerCase() === b.toLowerCase();

export function matches(state: FilterState, p: FeatureProperties, now = Date.now()): boolean {
  if (state.site && !same(p.site, state.site)) return false;
  if (state.service && !same(p.service, state.service)) return false;
  if (state.provider && !same(p.provider, state.provider)) return false;
  if (state.type && !same(p.type, state.type)) return false;
  if (state.status) {
    const online = isOnline(p.last_update_at, now);
    if ((state.status === 'online') !== online) return false;
  }
  return true;
}

export function activeCount(state: FilterState): number {
  return Object.values(state).filter(Boolean).length;
}

/** Binds the filter form: fills its lists from the catalog and reports every change. */
export class Filters {
  state: FilterState = { ...EMPTY_FILTERS };
  private catalog: Catalog = { sites: [], services: [], providers: [], types: [] };
  private readonly seenTypes = new Set<string>();

  constructor(private readonly form: HTMLFormElement, private readonly onChange: (state: FilterState, changed: keyof FilterState | 'reset') => void) {
    form.addEventListener('change', (ev) => {
      const target = ev.target as HTMLInputElement | HTMLSelectElement;
      const name = target.name as keyof FilterState;
      if (!(name in this.state)) return;
      this.state = { ...this.state, [name]: target.value };
      if (name === 'site') this.fillCategories();
      this.onChange(this.state, name);
    });
    form.addEventListener('reset', (ev) => {
      ev.preventDefault();
      this.set({ ...EMPTY_FILTERS }, 'reset');
    });
    form.addEventListener('submit', (ev) => ev.preventDefault());
  }

  private select(name: string): HTMLSelectElement {
    return this.form.elements.namedItem(name) as HTMLSelectElement;
  }

  setCatalog(catalog: Partial<Catalog>): void {
    this.catalog = { ...this.catalog, ...catalog };
    this.fillSites();
    this.fillCategories();
    this.fillTypes();
  }

  /** Types met on the map that the type list did not name still get an option. */
  noteTypes(types: Iterable<string>): void {
    let added = false;
    for (const t of types) {
      if (!this.seenTypes.has(t)) { this.seenTypes.add(t); added = true; }
    }
    if (added) this.fillTypes();
  }

  set(next: FilterState, changed: keyof FilterState | 'reset'): void {
    this.state = { ...next };
    this.fillCategories();
    this.fillTypes();
    this.fillSites();
    const radios = this.form.querySelectorAll<HTMLInputElement>('input[name="status"]');
    radios.forEach((r) => { r.checked = r.value === this.state.status; });
    this.onChange(this.state, changed);
  }

  private fill(select: HTMLSelectElement, allLabel: string, options: { value: string; label: string }[], current: string): void {
    const list = [...options];
    let chosen = list.find((o) => same(o.value, current));
    if (current && !chosen) list.push(chosen = { value: current, label: current });
    select.replaceChildren(
      h('option', { value: '' }, allLabel),
      ...list.map((o) => h('option', { value: o.value }, o.label)),
    );
    select.value = chosen?.value ?? '';
  }

  private fillSites(): void {
    const sites = [...this.catalog.sites].sort((a, b) => a.context.name.localeCompare(b.context.name));
    this.fill(this.select('site'), 'All sites', sites.map((s) => ({
      value: s.id,
      label: `${s.context.name} (${formatNumber(s.attributes?.assets ?? 0)})`,
    })), this.state.site);
  }

  private categoryOptions(list: Category[]): { value: string; label: string }[] {
    const site = this.state.site.toLowerCase();
    return list
      .map((c) => {
        const cities = c.related?.cities ?? [];
        const here = site ? cities.filter((city) => String(city.id).toLowerCase() === site) : cities;
        const count = here.reduce((n, city) => n + (city.attributes?.assets ?? 0), 0);
        return { c, count, present: !site || cities.length === 0 || here.length > 0 };
      })
      .filter((x) => x.present)
      .map(({ c, count }) => ({ value: categoryName(c), label: count ? `${categoryName(c)} (${formatNumber(count)})` : categoryName(c) }))
      .sort((a, b) => a.value.localeCompare(b.value));
  }

  private fillCategories(): void {
    this.fill(this.select('service'), 'All services', this.categoryOptions(this.catalog.services), this.state.service);
    this.fill(this.select('provider'), 'All providers', this.categoryOptions(this.catalog.providers), this.state.provider);
  }

  private fillTypes(): void {
    const byKey = new Map<string, string>();
    for (const t of this.catalog.types) byKey.set(t.type.toLowerCase(), t.type);
    for (const t of this.seenTypes) if (!byKey.has(t.toLowerCase())) byKey.set(t.toLowerCase(), t);
    const options = [...byKey.values()]
      .map((t) => ({ value: t, label: typeLabel(t) }))
      .sort((a, b) => a.label.localeCompare(b.label));
    this.fill(this.select('type'), 'All types', options, this.state.type);
  }
}
