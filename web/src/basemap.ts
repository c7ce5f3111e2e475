import L from 'leaflet';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countriesWorldUrl from 'world-atlas/countries-110m.json?url';
import countriesUrl from 'world-atlas/countries-50m.json?url';
import landDetailUrl from 'world-atlas/land-10m.json?url';

/**
 * The base map, drawn from Natural Earth outlines shipped with the page: no tile server is ever
 * contacted. Countries at 1:110m for the first view (a seventh of the 1:50m data, so it draws at
 * once), then at 1:50m from regional zoom on, loaded once the page is ready; at city zoom the 1:10m coastline replaces the
 * coarse land fill, while the 1:50m borders stay on top.
 */

const COUNTRIES_ZOOM = 4;
const DETAIL_ZOOM = 7;
/**
 * Beyond this zoom even the 1:10m coastline is off by hundreds of metres, so land and sea stop being
 * told apart by fill (a point on the shore would seem to float at sea) and the coast is only hinted at.
 */
const STREET_ZOOM = 11;
const LAND = { color: '#c5d0dc', weight: 0.8, fillColor: '#f8fafc', fillOpacity: 1, dashArray: '' };
const HINT = { color: '#a9bccf', weight: 1.2, fillColor: '#f8fafc', fillOpacity: 0, dashArray: '5 5' };

async function topology(url: string): Promise<Topology> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`outline ${res.status}`);
  return (await res.json()) as Topology;
}

/** The base map of a Leaflet map. */
export interface BaseMap {
  /** From now on, draw finer outlines where the zoom calls for them (the first view is drawn with the coarsest). */
  refine(): void;
}

export function addBaseMap(map: L.Map, onError: (message: string) => void): BaseMap {
  const renderer = L.canvas({ padding: 0.3 });
  map.createPane('basemap');
  const pane = map.getPane('basemap');
  if (pane) pane.style.zIndex = '250';

  const common = { renderer, pane: 'basemap', interactive: false, smoothFactor: 1.2 } as const;
  let coarse: L.GeoJSON | null = null;
  let borders: L.GeoJSON | null = null;
  let countriesScale: 'world' | 'regional' | null = null;
  let refined = false;
  let regionalLoading = false;
  let detail: L.GeoJSON | null = null;
  let detailLoading = false;

  const showCountries = (topo: Topology, scale: 'world' | 'regional'): void => {
    const countries = topo.objects.countries as GeometryCollection;
    coarse?.remove();
    borders?.remove();
    coarse = L.geoJSON(feature(topo, countries), {
      ...common,
      style: { color: '#c5d0dc', weight: 0.8, fillColor: '#f8fafc', fillOpacity: 1 },
    }).addTo(map);
    if (detail && map.hasLayer(detail)) detail.bringToBack();
    // Shared borders drawn once more, above any detailed land fill.
    borders = L.geoJSON(mesh(topo, countries, (a, b) => a !== b), {
      ...common,
      style: { color: '#b6c3d1', weight: 1, fill: false },
    }).addTo(map);
    countriesScale = scale;
  };

  const sync = (): void => {
    const zoomedIn = map.getZoom() >= DETAIL_ZOOM;
    const street = map.getZoom() >= STREET_ZOOM;
    map.getContainer().classList.toggle('street-zoom', street);
    if (refined && map.getZoom() >= COUNTRIES_ZOOM && countriesScale !== 'regional' && !regionalLoading) {
      regionalLoading = true;
      topology(countriesUrl)
        .then((topo) => {
          showCountries(topo, 'regional');
          sync();
        })
        .catch(() => onError('The detailed borders could not be loaded; coarser ones are shown.'));
    }
    if (zoomedIn && !detail && !detailLoading) {
      detailLoading = true;
      topology(landDetailUrl)
        .then((topo) => {
          const land = feature(topo, topo.objects.land as GeometryCollection);
          detail = L.geoJSON(land, { ...common, style: LAND });
          sync();
        })
        .catch(() => onError('The detailed coastline could not be loaded; a coarser one is shown.'))
        .finally(() => { detailLoading = false; });
    }
    if (coarse) {
      const hidden = zoomedIn && detail !== null;
      coarse.setStyle({ fillOpacity: hidden ? 0 : 1, opacity: hidden ? 0 : 1 });
    }
    if (detail) {
      detail.setStyle(street ? HINT : LAND);
      if (zoomedIn && !map.hasLayer(detail)) detail.addTo(map).bringToBack();
      if (!zoomedIn && map.hasLayer(detail)) detail.remove();
    }
  };

  topology(countriesWorldUrl)
    .then((topo) => {
      // The regional outlines may have come first (a deep link straight into a city).
      if (countriesScale === null) showCountries(topo, 'world');
      sync();
    })
    .catch(() => onError('The map outlines could not be loaded.'));

  map.on('zoomend', sync);
  return {
    refine() {
      refined = true;
      sync();
    },
  };
}
