/**
 * Metadata search (`/assets/metadata/search?query=a+b`): the query is split on
 * white space and `+` into terms; an asset matches when every term occurs,
 * case-insensitively, in its id, type, site, one of its attribute names or one
 * of its metadata values.
 */
import { badRequest } from './errors.js';
import { invalidParameter } from './query-parameter.js';

export const MAX_TERMS = 8;
/**
 * Searches count their matches up to this many: every match is found by
 * reading the asset's text, so beyond it X-Total-Count is left out (a short
 * page still ends the list).
 */
export const SEARCH_TOTAL_CAP = 1000;
export const MAX_TERM_LENGTH = 100;

export function parseSearchTerms(query: string | undefined, name = 'query'): string[] {
  if (query === undefined || query.trim() === '') throw badRequest(`Missing query parameter '${name}': give one or more words to search for`);
  const terms = [...new Set(query.split(/[\s+]+/).map((t) => t.toLowerCase()).filter((t) => t !== ''))];
  if (terms.length === 0) throw invalidParameter(name, `give one or more words to search for`);
  if (terms.length > MAX_TERMS) throw invalidParameter(name, `at most ${MAX_TERMS} words`);
  const long = terms.find((t) => t.length > MAX_TERM_LENGTH);
  if (long) throw invalidParameter(name, `words are at most ${MAX_TERM_LENGTH} characters`);
  return terms;
}

/** The texts a term is looked for in, one asset. */
export interface SearchableAsset {
  id: string;
  type: string;
  site: string;
  attributes: Readonly<Record<string, { metadata?: Readonly<Record<string, { value?: unknown }>> } | undefined>>;
}

/** Every text of an asset that search looks at, lower-cased. */
export function searchableTexts(asset: SearchableAsset): string[] {
  const texts = [asset.id, asset.type, asset.site];
  for (const [name, attribute] of Object.entries(asset.attributes)) {
    texts.push(name);
    for (const meta of Object.values(attribute?.metadata ?? {})) {
      const v = meta?.value;
      if (v !== undefined && v !== null) texts.push(typeof v === 'string' ? v : JSON.stringify(v));
    }
  }
  return texts.map((t) => t.toLowerCase());
}

export function matchesAllTerms(asset: SearchableAsset, terms: readonly string[]): boolean {
  const texts = searchableTexts(asset);
  return terms.every((term) => texts.some((t) => t.includes(term)));
}
