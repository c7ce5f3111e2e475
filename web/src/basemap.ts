import L from 'leaflet';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countriesUrl from 'world-atlas/countries-50m.json?url';
import landDetailUrl from 'world-atlas/land-10m.json?url';

/**
 * The base map, drawn from Natural Earth outlines shipped with the page: no tile server is ever
 * contacted. Countries at 1:50m for the world view; at city zoom the 1:10m coastline replaces
 * the coarse land fill, while the 1:50m borders stay on top.
 */

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

export function addBaseMap(map: L.Map, onError: (message: string) => void): void {
  const renderer = L.canvas({ padding: 0.3 });
  map.createPane('basemap');
  const pane = map.getPane('basemap');
  if (pane) pane.style.zIndex = '250';

  const common = { renderer, pane: 'basemap', interactive: false, smoothFactor: 1.2 } as const;
  let coarse: L.GeoJSON | null = null;
  let detail: L.GeoJSON | null = null;
  let detailLoading = false;

  const sync = (): void => {
    const zoomedIn = map.getZoom() >= DETAIL_ZOOM;
    const street = map.getZoom() >= STREET_ZOOM;
    map.getContainer().classList.toggle('street-zoom', street);
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

  topology(countriesUrl)
    .then((topo) => {
      const countries = topo.objects.countries as GeometryCollection;
      coarse = L.geoJSON(feature(topo, countries), {
        ...common,
        style: { color: '#c5d0dc', weight: 0.8, fillColor: '#f8fafc', fillOpacity: 1 },
      }).addTo(map);
      // Shared borders drawn once more, above any detailed land fill.
      L.geoJSON(mesh(topo, countries, (a, b) => a !== b), {
        ...common,
        style: { color: '#b6c3d1', weight: 1, fill: false },
      }).addTo(map);
      sync();
    })
    .catch(() => onError('The map outlines could not be loaded.'));

  map.on('zoomend', sync);
}
