/**
 * The observatory's street map: a raster tile URL template such as
 * `https://tile.openstreetmap.org/{z}/{x}/{y}.png`, optionally with `{s}` for a subdomain
 * (`https://{s}.tile.example.org/…`, served from a, b and c).
 */

const TEMPLATE = /^(https?):\/\/([^/\s?#]+)(\/[^\s]*)$/;
const HOST = /^(\{s\}\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?$/;

/** A template the page can draw: http(s), a plain host (or `{s}.` before it), and {z}, {x} and {y} in its path. */
export function isTileTemplate(template: string): boolean {
  const match = TEMPLATE.exec(template);
  if (!match) return false;
  const [, , host = '', rest = ''] = match;
  return HOST.test(host) && ['{z}', '{x}', '{y}'].every((p) => rest.includes(p));
}

/**
 * The Content-Security-Policy source that allows exactly the template's host: its scheme and host
 * (with port), a `{s}` subdomain becoming `*.` since the page picks one of several.
 */
export function tileSource(template: string): string {
  const match = TEMPLATE.exec(template);
  if (!match) throw new Error(`not a tile template: ${template}`);
  const [, scheme, host = ''] = match;
  return `${scheme}://${host.replace(/^\{s\}\./, '*.')}`;
}
