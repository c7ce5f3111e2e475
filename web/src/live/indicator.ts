import { h } from '../dom';
import type { LiveState } from './stream';
import './live.css';

const LABEL: Record<LiveState, string> = { off: '', connecting: 'Reconnecting…', live: 'Live' };
const TITLE: Record<LiveState, string> = {
  off: '',
  connecting: 'The live updates were interrupted; reconnecting without missing any change',
  live: 'The map follows the platform live: assets appear, move and disappear as their sites report',
};

/** The small badge over the map telling whether it follows the platform live. */
export class LiveIndicator {
  readonly element = h('div', { class: 'live-indicator', 'data-testid': 'live-indicator', 'data-state': 'off', role: 'status', hidden: true },
    h('span', { class: 'live-dot', 'aria-hidden': 'true' }), h('span', { class: 'live-label' }));

  constructor(parent: HTMLElement) {
    parent.append(this.element);
  }

  show(state: LiveState): void {
    this.element.dataset.state = state;
    this.element.hidden = state === 'off';
    this.element.title = TITLE[state];
    this.element.querySelector('.live-label')!.textContent = LABEL[state];
  }
}
