import { type Api, ApiError, isAbort } from './api';
import { AssetPanel, type AssetHint } from './asset-panel';
import { byId, debounce } from './dom';
import { ONLINE_WINDOW_MS } from './format';
import { type FilterState, Filters, activeCount, categoryName, matches } from './filters';
import { LiveMap } from './live/live-map';
import { ObservatoryMap, SITE_ZOOM } from './map';
import { notify } from './notify';
import { colourIndex } from './palette';
import { Sidebar } from './sidebar';
import type { Asset, AssetFeature, Category, Site } from './types';

/** Ties the map, filters, side panel and asset panel to the discovery interface. */

const PER = 1000;

export class Observatory {
  private sites: Site[] = [];
  private services: Category[] = [];
  private providers: Category[] = [];
  private features: AssetFeature[] = [];
  private truncated = false;
  private total: number | null = null;
  private readonly refreshSoon = debounce(() => void this.refresh(), 250);
  private search: AbortController | null = null;
  private readonly map: ObservatoryMap;
  private readonly filters: Filters;
  private readonly sidebar = new Sidebar();
  private readonly panel: AssetPanel;
  private readonly busy = byId('map-busy');
  private readonly live: LiveMap;

  constructor(private readonly api: Api) {
    this.map = new ObservatoryMap(byId('map'), {
      onSite: (s) => this.zoomToSite(s),
      onAsset: (f) => this.openAsset({ id: f.properties.id, type: f.properties.type, properties: f.properties }, false),
      onView: () => void this.refresh(),
      onError: (m) => notify(m),
    });
    this.filters = new Filters(byId<HTMLFormElement>('filters'), (state, changed) => this.filtersChanged(state, changed));
    this.panel = new AssetPanel(byId('asset-panel'), api, {
      onClose: () => {
        this.map.assets.select(null, null);
        if (location.hash.startsWith('#asset=')) history.replaceState(null, '', location.pathname + location.search);
      },
      onLocate: (lat, lon) => this.map.flyTo(lat, lon, 17, byId('asset-panel')),
    });
    window.addEventListener('popstate', () => this.followHash());
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

  async start(): Promise<void> {
    await this.loadCatalog(true);
    this.followHash();
    await this.refresh();
    this.map.refineOutlines();
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
    if (fit && !location.hash.startsWith('#asset=')) this.map.fitSites(this.sites);
  }

  private followHash(): void {
    const m = /^#asset=(.+)$/.exec(location.hash);
    const id = m ? decodeURIComponent(m[1]!) : null;
    if (id && id !== this.panel.openId) void this.openAsset({ id }, true, false);
    if (!id && this.panel.openId) this.panel.close();
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
      const filter = [state.service && `service:${state.service}`, state.provider && `provider:${state.provider}`].filter(Boolean).join(',');
      const { collections, total } = await this.api.geoSearch(ring, {
        city: state.site || undefined,
        filter: filter || undefined,
        type: state.type || undefined,
        updatedSince: state.status === 'online' ? new Date(Date.now() - ONLINE_WINDOW_MS).toISOString() : undefined,
        per: PER,
      }, ctrl.signal);
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
      this.map.sites.render(this.siteViews(state));
      this.sidebar.showSites(this.sites, (s) => this.zoomToSite(s));
      return;
    }
    const now = Date.now();
    const shown = this.features.filter((f) => matches(state, f.properties, now));
    const forLegend = state.type ? this.features.filter((f) => matches({ ...state, type: '' }, f.properties, now)) : shown;
    this.map.assets.render(shown, now);
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

  private async openAsset(hint: AssetHint, fly: boolean, push = true): Promise<void> {
    const hash = `#asset=${encodeURIComponent(hint.id)}`;
    if (push && location.hash !== hash) history.pushState(null, '', hash);
    const coords = hint.properties ? this.features.find((f) => f.properties.id === hint.id)?.geometry?.coordinates : undefined;
    if (coords) this.map.assets.select(coords[1] ?? null, coords[0] ?? null, hint.type);
    const asset = await this.panel.open(hint);
    const pos = asset?.context?.position ?? hint.asset?.context?.position;
    if (this.panel.openId !== hint.id || typeof pos?.latitude !== 'number' || typeof pos.longitude !== 'number') return;
    this.map.assets.select(pos.latitude, pos.longitude, asset?.type ?? hint.type);
    if (fly) this.map.flyTo(pos.latitude, pos.longitude, 16, byId('asset-panel'));
    else this.map.reveal(pos.latitude, pos.longitude, byId('asset-panel'));
  }

  /** A search result: open it and bring its place into view. */
  pick(asset: Asset): void {
    void this.openAsset({ id: asset.id, type: asset.type, asset }, true);
  }
}
