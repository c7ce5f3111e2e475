import { byId, h } from './dom';

/** Polite, dismissible messages in a live region; the same message is never stacked twice. */

const shown = new Map<string, HTMLElement>();

export function notify(message: string, kind: 'error' | 'info' = 'error', ms = 7000): void {
  const region = byId('toasts');
  shown.get(message)?.remove();
  const close = (): void => {
    toast.remove();
    if (shown.get(message) === toast) shown.delete(message);
  };
  const toast = h('div', { class: `toast toast-${kind}`, 'data-testid': `toast-${kind}` },
    h('span', {}, message),
    h('button', { type: 'button', class: 'toast-close', 'aria-label': 'Dismiss message', onclick: close }, '×'));
  shown.set(message, toast);
  region.append(toast);
  window.setTimeout(close, ms);
}
