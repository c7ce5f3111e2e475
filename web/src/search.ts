import { type Api, ApiError, isAbort } from './api';
import { debounce, h } from './dom';
import { assetName, nonEmpty, typeLabel } from './format';
import { colourClass } from './palette';
import type { Asset } from './types';

/**
 * The search box: a combobox over the metadata search. Arrow keys move through the results,
 * Enter opens one, Escape closes the list.
 */

const MIN_LENGTH = 2;
const PER = 20;

export class SearchBox {
  private results: Asset[] = [];
  private active = -1;
  private pending: AbortController | null = null;

  constructor(
    private readonly input: HTMLInputElement,
    private readonly list: HTMLUListElement,
    private readonly api: Api,
    private readonly onPick: (asset: Asset) => void,
  ) {
    const run = debounce(() => void this.search(), 300);
    input.addEventListener('input', () => {
      if (input.value.trim().length < MIN_LENGTH) { run.cancel(); this.pending?.abort(); this.hide(); return; }
      run();
    });
    input.addEventListener('keydown', (ev) => this.key(ev));
    input.addEventListener('focus', () => { if (this.results.length && input.value.trim().length >= MIN_LENGTH) this.show(); });
    input.addEventListener('blur', () => window.setTimeout(() => {
      if (!this.list.contains(document.activeElement)) this.hide();
    }, 150));
  }

  private async search(): Promise<void> {
    const words = this.input.value.trim().split(/\s+/).filter(Boolean);
    if (!words.length) return;
    this.pending?.abort();
    const ctrl = new AbortController();
    this.pending = ctrl;
    this.input.setAttribute('aria-busy', 'true');
    try {
      this.results = await this.api.search(words, PER, ctrl.signal);
      if (!Array.isArray(this.results)) this.results = [];
      this.renderResults();
    } catch (err) {
      if (isAbort(err)) return;
      this.results = [];
      this.renderMessage(err instanceof ApiError ? err.message : 'Search is not available right now.');
    } finally {
      if (this.pending === ctrl) this.input.removeAttribute('aria-busy');
    }
  }

  private renderMessage(text: string): void {
    this.active = -1;
    this.input.removeAttribute('aria-activedescendant');
    this.list.replaceChildren(h('li', { class: 'search-message', role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false' }, text));
    this.show();
  }

  private renderResults(): void {
    if (!this.results.length) {
      this.renderMessage('No assets match this search.');
      return;
    }
    this.active = -1;
    this.input.removeAttribute('aria-activedescendant');
    this.list.replaceChildren(...this.results.map((a, i) => {
      const pos = a.context?.position;
      const where = nonEmpty(a.context?.experiment)
        ? 'Experiment'
        : [nonEmpty(pos?.city), nonEmpty(pos?.country_code)].filter(Boolean).join(', ') || nonEmpty(a.id.split(':')[3]) || '';
      return h('li', {
        id: `search-option-${i}`, role: 'option', class: 'search-option', 'aria-selected': 'false',
        'data-testid': 'search-result', 'data-asset-id': a.id,
        onmousedown: (ev: Event) => ev.preventDefault(),
        onclick: () => this.pick(i),
      },
      h('span', { class: `dot ${colourClass(a.type)}`, 'aria-hidden': 'true' }),
      h('span', { class: 'item-text' },
        h('span', { class: 'item-primary' }, assetName(a.id, a.context?.name)),
        h('span', { class: 'item-secondary' }, [typeLabel(a.type), nonEmpty(a.context?.service), where].filter(Boolean).join(' · '))));
    }));
    this.show();
  }

  private move(index: number): void {
    const options = [...this.list.querySelectorAll<HTMLElement>('.search-option')];
    if (!options.length) return;
    this.active = (index + options.length) % options.length;
    options.forEach((o, i) => o.setAttribute('aria-selected', String(i === this.active)));
    const current = options[this.active]!;
    this.input.setAttribute('aria-activedescendant', current.id);
    current.scrollIntoView({ block: 'nearest' });
  }

  private key(ev: KeyboardEvent): void {
    const open = !this.list.hidden;
    if (ev.key === 'ArrowDown') {
      ev.preventDefault();
      if (!open && this.results.length) this.show();
      this.move(this.active + 1);
    } else if (ev.key === 'ArrowUp') {
      ev.preventDefault();
      this.move(this.active - 1);
    } else if (ev.key === 'Enter') {
      ev.preventDefault();
      if (open && this.active >= 0) this.pick(this.active);
      else if (this.input.value.trim().length >= MIN_LENGTH) void this.search();
    } else if (ev.key === 'Escape' && open) {
      ev.preventDefault();
      ev.stopPropagation();
      this.hide();
    }
  }

  private pick(index: number): void {
    const asset = this.results[index];
    if (!asset) return;
    this.hide();
    this.onPick(asset);
  }

  private show(): void {
    this.list.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
  }

  private hide(): void {
    this.list.hidden = true;
    this.active = -1;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }
}
