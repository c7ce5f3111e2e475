import { svg } from './dom';

/** The circular gauge used by site markers and clusters: dark disc, green arc for the online share. */

const R = 19;
const CIRCUMFERENCE = 2 * Math.PI * R;

export function onlineRing(onlineShare: number): SVGElement {
  const share = Math.max(0, Math.min(1, onlineShare));
  const root = svg('svg', { class: 'ring', viewBox: '0 0 44 44', 'aria-hidden': 'true', focusable: 'false' });
  root.append(
    svg('circle', { class: 'ring-disc', cx: 22, cy: 22, r: 21 }),
    svg('circle', { class: 'ring-track', cx: 22, cy: 22, r: R }),
    svg('circle', {
      class: 'ring-online', cx: 22, cy: 22, r: R,
      'stroke-dasharray': `${(share * CIRCUMFERENCE).toFixed(2)} ${CIRCUMFERENCE.toFixed(2)}`,
      transform: 'rotate(-90 22 22)',
    }),
  );
  return root;
}

const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export function compactCount(n: number): string {
  return compact.format(n);
}
