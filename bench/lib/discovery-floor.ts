import { REPO_ROOT } from './server.js';
import { freePort, spawnChild, waitUntilAnswering } from './processes.js';

/**
 * The raw floor of the discovery reads on SQLite: node:http and better-sqlite3
 * on the very database file the platform serves, with the platform's reader
 * settings (a read connection with a 32 MiB page cache) and the same
 * statements it sends for the two probes that read the store on every answer
 * (a page of /assets with its counter total; a 500 m circle walked in the
 * R*Tree of city positions, its inner box first, then its page's rows by seq). Each answer is the
 * same JSON the platform gives, built with JSON.stringify, and nothing else
 * happens: no framework, no validation, no token, no cache. What the platform
 * costs above this is its own; below it, only less work per answer helps.
 */
const FLOOR_SERVER = `
const http = require('node:http');
const Database = require('better-sqlite3');
const db = new Database(process.env.FLOOR_DB, { readonly: true });
db.pragma('cache_size = -32768');
const BASE = process.env.FLOOR_BASE;
const R = 6371008.7714, DEG = Math.PI / 180;
const hav = (x) => Math.sin(x / 2) ** 2;
const sqlHav = (lat, lon) => '(power(sin((radians(' + lat + ') - @phi) / 2), 2) + @cosphi * cos(radians(' + lat + ')) * power(sin((radians(' + lon + ') - @lambda) / 2), 2))';
const rounded = sqlHav('((r.min_lat + r.max_lat) / 2)', '((r.min_lon + r.max_lon) / 2)');
const inBox = db.prepare('select r.id as seq from city_positions r where r.min_lon >= @minlon and r.max_lon <= @maxlon and r.min_lat >= @minlat and r.max_lat <= @maxlat limit @lim').pluck();
const circle = db.prepare('select r.id as seq from city_positions r where r.min_lon <= @maxlon and r.max_lon >= @minlon and r.min_lat <= @maxlat and r.max_lat >= @minlat'
  + ' and not (r.min_lon >= @wminlon and r.max_lon <= @wmaxlon and r.min_lat >= @wminlat and r.max_lat <= @wmaxlat)'
  + ' and (' + rounded + ' <= @inner or (' + rounded + ' <= @outer and exists (select 1 from assets where assets.seq = r.id and ' + sqlHav('assets.latitude', 'assets.longitude') + ' <= @exact))) limit @lim').pluck();
// The circle's inner box (src/domain/geo.ts innerBox), for the small circles of the probe.
function innerBox(lat, lon, r) {
  const halfHeight = r / Math.SQRT2, phi = lat * DEG;
  const cornerPhi = Math.abs(phi) > halfHeight ? phi - Math.sign(phi) * halfHeight : 0;
  const room = (hav(r) - hav(halfHeight)) / (Math.cos(phi) * Math.cos(cornerPhi));
  const dLat = (halfHeight * (1 - 1e-6)) / DEG, dLon = (2 * Math.asin(Math.sqrt(Math.max(0, room))) * (1 - 1e-6)) / DEG;
  return { minlon: lon - dLon, maxlon: lon + dLon, minlat: lat - dLat, maxlat: lat + dLat };
}
const COLUMNS = 'seq, id, type, site, service, provider, grp, name, experimenter, experiment, latitude, longitude, recorded_at, last_reading_at';
const bySeq = db.prepare('select ' + COLUMNS + ' from assets where seq in (select value from json_each(?)) and deleted_at is null');
const page = db.prepare('select ' + COLUMNS + " from assets where deleted_at is null and site <> 'experimenters' order by last_reading_at desc, seq desc limit ? offset ?");
const total = db.prepare("select coalesce(sum(assets), 0) from asset_counts where site <> 'experimenters'").pluck();
const sites = new Map(db.prepare('select * from sites').all().map((s) => [s.id, s]));
const iso = (ms) => new Date(ms).toISOString();
const record = (a) => {
  const s = sites.get(a.site);
  const recorded = iso(a.recorded_at);
  return {
    id: a.id, type: a.type,
    context: {
      service: a.service, provider: a.provider, group: a.grp, name: a.name, experimenter: a.experimenter, experiment: a.experiment,
      last_reading_at: iso(a.last_reading_at), recorded_at: recorded, last_updated_at: recorded,
      position: { latitude: a.latitude, longitude: a.longitude, city: s ? s.city ?? s.name : null, country_code: s ? s.country_code : null, country: s ? s.country : null },
    },
    related: {
      service: { type: a.service }, provider: { type: a.provider }, group: { type: a.grp },
      site: s ? { id: s.id, type: s.type, name: s.name, position: { latitude: s.latitude, longitude: s.longitude },
        links: { self: BASE + '/assets/sites/' + encodeURIComponent(s.id), related: { href: BASE + '/assets?filter=' + encodeURIComponent('site:' + s.id) } } } : null,
      experiment: null,
    },
  };
};
function geo(q) {
  const lat = Number(q.get('lat')), lon = Number(q.get('long')), r = (Number(q.get('radius')) * 1000) / R, per = 30;
  const dLat = r / DEG, dLon = Math.asin(Math.min(1, Math.sin(r) / Math.cos(lat * DEG))) / DEG, slack = 2 / R;
  const walked = innerBox(lat, lon, r);
  const first = inBox.all({ ...walked, lim: 101 });
  const rest = first.length < 101 ? circle.all({ minlon: lon - dLon, maxlon: lon + dLon, minlat: lat - dLat, maxlat: lat + dLat,
    wminlon: walked.minlon, wmaxlon: walked.maxlon, wminlat: walked.minlat, wmaxlat: walked.maxlat, phi: lat * DEG, cosphi: Math.cos(lat * DEG), lambda: lon * DEG,
    inner: hav(r - slack), outer: hav(r + slack), exact: hav(r), lim: 101 - first.length }) : [];
  const seqs = [...first, ...rest].slice(0, per);
  const rows = new Map(bySeq.all(JSON.stringify(seqs)).map((a) => [a.seq, a]));
  const byType = new Map();
  for (const seq of seqs) {
    const a = rows.get(seq);
    if (!a) continue;
    let c = byType.get(a.type);
    if (!c) byType.set(a.type, (c = { type: 'FeatureCollection', properties: { name: a.type }, features: [] }));
    c.features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [a.longitude, a.latitude] },
      properties: { id: a.id, type: a.type, name: a.name, site: a.site, service: a.service, provider: a.provider, group: a.grp, origin: a.experiment !== null ? 'experiment' : 'city', last_update_at: a.last_reading_at } });
  }
  return { type: 'application/geojson', body: JSON.stringify([...byType.values()]) };
}
function list(q) {
  const per = Number(q.get('per') ?? 30);
  return { type: 'application/json; charset=utf-8', body: JSON.stringify(page.all(per, 0).map(record)), total: String(total.get()) };
}
http.createServer((req, res) => {
  if (req.url === '/__ready') { res.writeHead(200); res.end(); return; }
  const url = new URL(req.url, 'http://floor');
  const answer = url.pathname.endsWith('/assets/geo/search') ? geo(url.searchParams) : list(url.searchParams);
  const headers = { 'content-type': answer.type };
  if (answer.total !== undefined) headers['x-total-count'] = answer.total;
  res.writeHead(200, headers);
  res.end(answer.body);
}).listen(Number(process.env.FLOOR_PORT), '127.0.0.1');
`;

export interface DiscoveryFloor {
  url: string;
  close(): Promise<void>;
}

/** Starts the floor on a SQLite database file; `base` is the discovery interface's public URL (for the links). */
export async function startDiscoveryFloor(file: string, base: string): Promise<DiscoveryFloor> {
  const port = await freePort();
  const child = spawnChild(process.execPath, ['-e', FLOOR_SERVER], {
    PATH: process.env.PATH,
    FLOOR_DB: file,
    FLOOR_PORT: String(port),
    FLOOR_BASE: base,
  }, REPO_ROOT);
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(`${url}/__ready`, child, { timeoutMs: 20_000 });
  return { url, close: () => child.stop() };
}
