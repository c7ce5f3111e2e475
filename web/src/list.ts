import { h } from './dom';

/**
 * A list of buttons navigable with one Tab stop: arrow keys, Home and End move between rows
 * (roving tabindex), Enter or Space opens the row.
 */

export interface ListItem {
  key: string;
  primary: string;
  secondary?: string;
  badge?: string;
  dotClass?: string;
  testId?: string;
  onSelect: () => void;
}

function buttons(ul: HTMLElement): HTMLButtonElement[] {
  return [...ul.querySelectorAll<HTMLButtonElement>(':scope > li > button')];
}

export function bindListKeys(ul: HTMLElement): void {
  ul.addEventListener('keydown', (ev) => {
    const all = buttons(ul);
    const index = all.indexOf(document.activeElement as HTMLButtonElement);
    let next = -1;
    if (ev.key === 'ArrowDown') next = Math.min(index + 1, all.length - 1);
    else if (ev.key === 'ArrowUp') next = Math.max(index - 1, 0);
    else if (ev.key === 'Home') next = 0;
    else if (ev.key === 'End') next = all.length - 1;
    else return;
    ev.preventDefault();
    focusRow(all, next);
  });
  // Whichever row gets focus (click, arrow, a closed panel handing it back) becomes the Tab stop.
  ul.addEventListener('focusin', (ev) => {
    const all = buttons(ul);
    if (all.includes(ev.target as HTMLButtonElement)) all.forEach((b) => { b.tabIndex = b === ev.target ? 0 : -1; });
  });
  // Focusing the list itself (skip link) hands focus to its active row.
  ul.addEventListener('focus', () => {
    const all = buttons(ul);
    (all.find((b) => b.tabIndex === 0) ?? all[0])?.focus();
  });
}

function focusRow(all: HTMLButtonElement[], index: number): void {
  const target = all[index];
  if (!target) return;
  all.forEach((b) => { b.tabIndex = b === target ? 0 : -1; });
  target.focus();
}

export function renderList(ul: HTMLElement, items: ListItem[]): void {
  const focusedKey = ul.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.key : undefined;
  ul.replaceChildren(...items.map((item, i) => h('li', {},
    h('button', {
      type: 'button',
      class: 'item',
      tabindex: i === 0 ? 0 : -1,
      'data-key': item.key,
      'data-testid': item.testId,
      onclick: item.onSelect,
    },
    item.dotClass ? h('span', { class: `dot ${item.dotClass}`, 'aria-hidden': 'true' }) : null,
    h('span', { class: 'item-text' },
      h('span', { class: 'item-primary' }, item.primary),
      item.secondary ? h('span', { class: 'item-secondary' }, item.secondary) : null),
    item.badge ? h('span', { class: 'item-badge' }, item.badge) : null),
  )));
  if (focusedKey !== undefined) {
    const all = buttons(ul);
    const again = all.findIndex((b) => b.dataset.key === focusedKey);
    if (again >= 0) focusRow(all, again);
  }
}
