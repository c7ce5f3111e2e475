import { formatValue, isNumeric } from '../format';
import type { LiveChange } from './stream';

const valueText = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/**
 * Lays live changes over the open asset panel: each value shown is replaced by
 * its new one in place (the unit, the chart buttons and focus stay), and the
 * status line says the asset was just heard from. Returns whether any value shown changed.
 */
export function updatePanelValues(root: HTMLElement, changes: readonly LiveChange[]): boolean {
  let changed = false;
  for (const change of changes) {
    for (const [name, attribute] of Object.entries(change.attributes ?? {})) {
      const row = root.querySelector<HTMLElement>(`[data-testid="attribute"][data-name="${CSS.escape(name)}"] .attribute-value`);
      if (!row) continue;
      const text = valueText(attribute?.value);
      const shown = isNumeric(text) ? formatValue(text) : text || '—';
      const first = row.firstChild;
      if (first && first.nodeType === Node.TEXT_NODE) first.textContent = shown;
      else row.prepend(shown);
      row.closest<HTMLElement>('[data-testid="attribute"]')?.setAttribute('data-live', change.time);
      changed = true;
    }
  }
  const status = root.querySelector<HTMLElement>('[data-testid="asset-status"]');
  if (status && changes.some((c) => c.kind !== 'delete')) {
    status.textContent = 'Online';
    status.classList.replace('offline', 'online');
    const line = status.parentElement;
    if (line?.lastChild && line.lastChild !== status) line.lastChild.textContent = ' Updated just now';
  }
  return changed;
}
