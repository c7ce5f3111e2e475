import { type Api, ApiError, isAbort } from './api';
import { AssetPanel, type AssetHint, type HistoryWish } from './asset-panel';
import { ColourBy } from './colour-by';
import { Comparison } from './comparison';
import { byId, debounce } from './dom';
import { count, isOnline, onlineWindowMs } from './format';
import { type FilterState, Filters, activeCount, categoryName, matches } from './filters';
import { LiveMap } from './live/live-map';
import { ObservatoryMap, SITE_ZOOM } from './map';
import { notify } from './notify';
import { colourIndex } from './palette';
import type { PageSettings } from './settings';
import { Sidebar } from './sidebar';
import { presetRange, type TimeRange } from './time-range';
import type { Asset, AssetFeature, Category, Site } from './types';
import { type ViewState, formatView, parseView } from './view-state';

/** Ties the map, filters, side panel and asset panel to the discovery interface. */

const PER = 1000;

export class Observatory {
  private sites: Site[] = [];
  private services: Category[] = [];
  private providers: Category[] = [];
  private features: AssetFeature[] = [];
  private shown: AssetFeature[] = [];
  private truncated = false;
  private total: number | null = null;
  private readonly refreshSoon = debounce(() => void this.refresh(), 250);
  private search: AbortController | null = null;
  private readonly map: ObservatoryMap;
  private readonly filters: Filters;
  private readonly sidebar = new Sidebar();
  private readonly panel: AssetPanel;
  private readonly busy = byId('map-busy');
  private readonly comparison = new Comparison();
  private readonly colourBy: ColourBy;
  private readonly matchesButton = byId<HTMLButtonElement>('show-matches');
  private finding: AbortController | null = null;
  private started = false;
  /** The address this page last wrote or followed. */
  private written = '';
  private readonly live: LiveMap;

  constructor(private readonly api: Api, settings: PageSettings) {
    this.map = new ObservatoryMap(byId('map'), {
      onSite: (s) => this.zoomToSite(s),
      onAsset: (f) => this.openAsset({ id: f.properties.id, type: f.properties.type, properties: f.properties }, false),
      onView: () => { void this.refresh(); this.saveView(); },
      onError: (m) => notify(m),
    }, settings.tiles);
    this.filters = new Filters(byId<HTMLFormElement>('filters'), (state, changed) => this.filtersChanged(state, changed));
    this.panel = new AssetPanel(byId('asset-panel'), api, this.comparison, {
      onClose: () => {
        this.map.assets.select(null, null);
        this.saveView();
      },
      onLocate: (lat, lon) => this.map.flyTo(lat, lon, 17, byId('asset-panel')),
      onHistory: () => this.saveView(),
    });
    this.colourBy = new ColourBy(byId<HTMLSelectElement>('colour-by'), byId('colour-legend'), api, () => {
      this.recolour();
      this.saveView();
    });
    this.comparison.onChange(() => this.saveView());
    // Back, Forward, or another address pasted in this tab: the view it describes.
    const follow = (): void => {
      if (this.started && location.hash !== this.written) void this.apply(parseView(location.hash));
    };
    window.addEventListener('popstate', follow);
    window.addEventListener('hashchange', follow);
    this.live = new LiveMap(api.auth, byId('map').parentElement ?? byId('map'), {
      features: () => this.features,
      show: (features) => {
        this.features = features;
        this.render();
      },
      openAssetChanged: (_id, changes) => this.panel.liveChanged(changes),
      reload: () => void this.refresh(),
    }, () => this.panel.openId);
  }

  /** Opens the view the address describes (a shared link), else the world. */
  async start(): Promise<void> {
    const view = parseView(location.hash);
    await this.loadCatalog(!view.centre && !view.asset);
    await this.apply(view);
    this.map.refineOutlines();
  }

  /** Shows the view an address describes; what it does not name is reset. */
  private async apply(view: ViewState): Promise<void> {
    this.started = false;
    try {
      if (view.centre) this.map.setCentre(view.centre.lat, view.centre.lon, view.centre.zoom);
      if (JSON.stringify(view.filters) !== JSON.stringify(this.filters.state)) this.filters.set(view.filters, 'reset');
      this.refreshSoon.cancel();
      const pending: Promise<unknown>[] = [];
      if (view.colour !== this.colourBy.attribute) pending.push(this.colourBy.choose(view.colour));
      const pairs = (list: readonly { id: string; attr: string }[]): string => list.map((p) => `${p.id}~${p.attr}`).join(',');
      if (pairs(view.compare) !== pairs(this.comparison.list)) pending.push(this.comparison.restore(this.api, view.compare));
      await Promise.all(pending);
      const wish = { attr: view.attr, range: rangeOf(view.range) };
      // With a centre in the address the map stays exactly there: the asset is neither flown to nor revealed.
      if (view.asset) void this.openAsset({ id: view.asset }, !view.centre, false, wish, !view.centre);
      else if (this.panel.openId) this.panel.close();
    } finally {
      this.started = true;
      // The address in its one written form at once, so that a link copied now is the one any later change would write.
      const canonical = formatView(view);
      if (canonical !== '' && canonical !== location.hash) history.replaceState(null, '', location.pathname + location.search + canonical);
      this.written = location.hash;
    }
    await this.refresh();
  }

  /** The view as it is now, in the address (replacing the entry: only opening an asset adds one). */
  private saveView(push = false): void {
    if (!this.started) return;
    const hash = formatView(this.view());
    if (hash === location.hash || (hash === '' && location.hash === '')) return;
    const url = location.pathname + location.search + hash;
    if (push) history.pushState(null, '', url);
    else history.replaceState(null, '', url);
    this.written = location.hash;
  }

  private view(): ViewState {
    const chart = this.panel.chartView;
    return {
      centre: this.map.centre,
      filters: this.filters.state,
      colour: this.colourBy.attribute,
      asset: this.panel.openId,
      attr: chart.attr,
      range: !chart.range ? null : chart.range.preset ? { preset: chart.range.preset } : { from: chart.range.from, to: chart.range.to },
      compare: this.comparison.list.map(({ id, attr }) => ({ id, attr })),
    };
  }

  private recolour(): void {
    const ids = this.map.inAssetView ? this.shown.map((f) => f.properties.id) : [];
    this.map.assets.recolour(this.colourBy.classes(ids));
  }

  /** Reloads everything that depends on who is signed in. */
  async reload(): Promise<void> {
    await this.loadCatalog(false);
    await this.refresh();
  }

  private async loadCatalog(fit: boolean): Promise<void> {
    const [sites, services, providers, types] = await Promise.allSettled([
      this.api.sites(), this.api.services(), this.api.providers(), this.api.types(),
    ]);
    const value = <T>(r: PromiseSettledResult<T[]>): T[] => (r.status === 'fulfilled' && Array.isArray(r.value) ? r.value : []);
    this.sites = value(sites);
    this.services = value(services);
    this.providers = value(providers);
    this.filters.setCatalog({ sites: this.sites, services: this.services, providers: this.providers, types: value(types) });
    if (sites.status === 'rejected') {
      notify(sites.reason instanceof ApiError ? `The sites could not be loaded. ${sites.reason.message}` : 'The sites could not be loaded.');
    } else if ([services, providers, types].some((r) => r.status === 'rejected')) {
      notify('Some filter lists could not be loaded; the map still works.', 'info');
    }
    if (fit) this.map.fitSites(this.sites);
  }

  private zoomToSite(site: Site): void {
    const { latitude, longitude } = site.context.position ?? {};
    if (typeof latitude === 'number' && typeof longitude === 'number') this.map.flyTo(latitude, longitude, SITE_ZOOM);
  }

  private filtersChanged(state: FilterState, changed: keyof FilterState | 'reset'): void {
    const site = changed === 'site' ? this.sites.find((s) => s.id === state.site) : undefined;
    // What is loaded is narrowed at once; the platform is then asked again, since with the filters
    // it can fill the area's allowance with matching assets only.
    this.render();
    if (site) this.zoomToSite(site);
    this.refreshSoon();
    this.saveView();
  }

  /** Fetches what the current view needs: nothing more than the visible area's assets. */
  private async refresh(): Promise<void> {
    this.search?.abort();
    if (!this.map.inAssetView) {
      this.search = null;
      this.features = [];
      this.busy.hidden = true;
      this.live.follow(null, this.filters.state);
      this.render();
      return;
    }
    const ctrl = new AbortController();
    this.search = ctrl;
    this.busy.hidden = false;
    this.sidebar.showLoading();
    this.live.loading();
    try {
      const state = this.filters.state;
      const ring = this.map.viewRing();
      const { collections, total } = await this.api.geoSearch(ring, { ...platformFilters(state), per: PER }, ctrl.signal);
      if (this.search !== ctrl) return;
      const bounds: [number, number, number, number] = [ring[0]![0], ring[0]![1], ring[2]![0], ring[2]![1]];
      this.features = this.live.loaded(collections.flatMap((c) => (Array.isArray(c.features) ? c.features : []))
        .filter((f) => f?.properties?.id && f.geometry && f.geometry.type === 'Point'), bounds);
      this.live.follow(bounds, state);
      this.total = total;
      this.truncated = total !== null ? total > this.features.length : this.features.length >= PER;
      const counts = new Map<string, number>();
      for (const f of this.features) counts.set(f.properties.type, (counts.get(f.properties.type) ?? 0) + 1);
      // The commonest types get the first colours, whatever order the collections came in.
      [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || a.localeCompare(b)).forEach(colourIndex);
      this.filters.noteTypes(counts.keys());
      this.render();
    } catch (err) {
      if (isAbort(err)) return;
      notify(err instanceof ApiError ? `The assets of this area could not be loaded. ${err.message}` : 'The assets of this area could not be loaded.');
    } finally {
      if (this.search === ctrl) this.busy.hidden = true;
    }
  }

  private render(): void {
    const state = this.filters.state;
    const assetView = this.map.inAssetView;
    this.map.sites.show(!assetView);
    this.map.assets.show(assetView);
    if (!assetView) {
      this.shown = [];
      this.offerMatches(state, false);
      this.map.sites.render(this.siteViews(state));
      this.sidebar.showSites(this.sites, (s) => this.zoomToSite(s));
      return;
    }
    const now = Date.now();
    const shown = this.features.filter((f) => matches(state, f.properties, now));
    this.shown = shown;
    const forLegend = state.type ? this.features.filter((f) => matches({ ...state, type: '' }, f.properties, now)) : shown;
    this.map.assets.render(shown, now);
    this.recolour();
    this.offerMatches(state, shown.length === 0 && activeCount(state) > 0);
    this.sidebar.showAssets({
      shown, forLegend, loaded: this.features.length, total: this.total, truncated: this.truncated,
      filtered: activeCount(state) > 0 && shown.length !== this.features.length,
      selectedType: state.type,
      onType: (type) => this.filters.set({ ...this.filters.state, type }, 'type'),
      onAsset: (f) => this.openAsset({ id: f.properties.id, type: f.properties.type, properties: f.properties }, false),
    });
  }

  /** Sites stay at their full counts; those the filters rule out are dimmed. */
  private siteViews(state: FilterState): { site: Site; count: number; online: number; dimmed: boolean }[] {
    const present = (list: Category[], name: string, site: string): boolean => {
      const c = list.find((x) => categoryName(x).toLowerCase() === name.toLowerCase());
      const cities = c?.related?.cities;
      return !c || !cities?.length || cities.some((city) => String(city.id).toLowerCase() === site.toLowerCase());
    };
    return this.sites.map((site) => ({
      site,
      count: site.attributes?.assets ?? 0,
      online: site.attributes?.online ?? 0,
      dimmed: (!!state.site && state.site !== site.id)
        || (!!state.service && !present(this.services, state.service, site.id))
        || (!!state.provider && !present(this.providers, state.provider, site.id)),
    }));
  }

  /**
   * With filters that match nothing in view, offers to go to the matches elsewhere: the platform is
   * asked for them (the first 1,000 with their positions, and how many there are in all).
   */
  private offerMatches(state: FilterState, wanted: boolean): void {
    this.finding?.abort();
    this.finding = null;
    this.matchesButton.hidden = true;
    if (!wanted || !this.started) return;
    const ctrl = new AbortController();
    this.finding = ctrl;
    void (async () => {
      try {
        const { assets, total } = await this.api.matching(platformFilters(state), ctrl.signal);
        if (ctrl.signal.aborted) return;
        const now = Date.now();
        const found = assets.filter((a) => state.status !== 'offline' || !isOnline(a.context?.last_reading_at, now));
        const points = found.flatMap((a): [number, number][] => {
          const p = a.context?.position;
          return typeof p?.latitude === 'number' && typeof p.longitude === 'number' ? [[p.latitude, p.longitude]] : [];
        });
        const n = state.status === 'offline' ? found.length : total ?? found.length;
        if (!points.length || n === 0) return;
        this.matchesButton.textContent = `Show the ${count(n, 'match').replace(/matchs$/, 'matches')}`;
        this.matchesButton.dataset.count = String(n);
        this.matchesButton.onclick = () => {
          this.matchesButton.hidden = true;
          this.map.fitPoints(points);
        };
        this.matchesButton.hidden = false;
      } catch (err) {
        if (!isAbort(err)) this.matchesButton.hidden = true;
      }
    })();
  }

  private async openAsset(hint: AssetHint, fly: boolean, push = true, wish?: HistoryWish, move = true): Promise<void> {
    const coords = hint.properties ? this.features.find((f) => f.properties.id === hint.id)?.geometry?.coordinates : undefined;
    if (coords) this.map.assets.select(coords[1] ?? null, coords[0] ?? null, hint.type);
    const opening = this.panel.open(hint, wish);
    if (push) this.saveView(true);
    const asset = await opening;
    if (asset) this.colourBy.note(this.panel.attributeNames);
    const pos = asset?.context?.position ?? hint.asset?.context?.position;
    if (this.panel.openId !== hint.id || typeof pos?.latitude !== 'number' || typeof pos.longitude !== 'number') return;
    this.map.assets.select(pos.latitude, pos.longitude, asset?.type ?? hint.type);
    if (!move) return;
    if (fly) this.map.flyTo(pos.latitude, pos.longitude, 16, byId('asset-panel'));
    else this.map.reveal(pos.latitude, pos.longitude, byId('asset-panel'));
  }

  /** A search result: open it and bring its place into view. */
  pick(asset: Asset): void {
    void this.openAsset({ id: asset.id, type: asset.type, asset }, true);
  }
}

/** The filters the platform applies itself ("offline" stays a page-side filter). */
function platformFilters(state: FilterState): { city?: string; filter?: string; type?: string; updatedSince?: string } {
  const filter = [state.service && `service:${state.service}`, state.provider && `provider:${state.provider}`].filter(Boolean).join(',');
  return {
    city: state.site || undefined,
    filter: filter || undefined,
    type: state.type || undefined,
    updatedSince: state.status === 'online' ? new Date(Date.now() - onlineWindowMs()).toISOString() : undefined,
  };
}

function rangeOf(range: ViewState['range']): TimeRange | null {
  if (!range) return null;
  return 'preset' in range ? presetRange(range.preset) : { preset: null, from: range.from, to: range.to };
}
