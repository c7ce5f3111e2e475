// Copies the real OrganiCity data the demo city and the benchmarks are built
// from out of the reference data (../shared/reference/data by default) into
// src/demo/data/, so that the package needs nothing outside itself.
// Usage: node scripts/demo-data.mjs [reference-data-directory]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const from = process.argv[2] ?? join(import.meta.dirname, '..', '..', 'shared', 'reference', 'data');
const to = join(import.meta.dirname, '..', 'src', 'demo', 'data');
const read = (name) => JSON.parse(readFileSync(join(from, name), 'utf8'));
const write = (name, value) => writeFileSync(join(to, name), `${JSON.stringify(value, null, 1)}\n`);

// LdiezTest was a test entry of the original seed, at Santander's centre: not a city.
const seed = read('oc-sites-discovery-seed.json');
write('sites.json', {
  source: `reference/data/oc-sites-discovery-seed.json (${seed.source}); the test entry LdiezTest left out`,
  sites: seed.cities
    .filter((c) => c.name !== 'LdiezTest')
    .map((c) => ({
      id: c.name.toLowerCase(), name: c.name, latitude: c.latitude, longitude: c.longitude,
      countryCode: c.country_code ?? null, country: c.country ?? null, city: c.name,
    })),
});

const geo = read('oc-asset-urns-geo-2016.json');
write('asset-positions.json', {
  source: `reference/data/oc-asset-urns-geo-2016.json (${geo.source}). Each row: [asset id, [longitude, latitude]]`,
  assets: geo.features.map((f) => [f.id, f.geometry.coordinates]),
});

const entities = read('oc-orion-v2-entities-santander-2016.json');
write('santander-entities.json', {
  source: `reference/data/oc-orion-v2-entities-santander-2016.json (${entities.source})`,
  entities: entities.entities,
});
