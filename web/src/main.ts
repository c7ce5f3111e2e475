import 'leaflet/dist/leaflet.css';
import 'leaflet.markercluster/dist/MarkerCluster.css';
import './styles.css';
import { bindAccount } from './account';
import { Api } from './api';
import { Auth } from './auth';
import { Observatory } from './controller';
import { byId } from './dom';
import { notify } from './notify';
import { SearchBox } from './search';
import { loadSettings } from './settings';

async function main(): Promise<void> {
  const auth = new Auth();
  const signInProblem = await auth.completeSignIn();
  if (signInProblem) notify(signInProblem);

  const api = new Api(auth);
  const observatory = new Observatory(api, await loadSettings());
  bindAccount(auth);
  auth.onChange((reason) => {
    if (reason === 'expired') notify('Your session has ended; you now see public assets only. Sign in again to see your experiments.', 'info');
    void observatory.reload();
  });

  const input = byId<HTMLInputElement>('search-input');
  const narrow = matchMedia('(max-width: 760px)');
  const placeholder = (): void => { input.placeholder = narrow.matches ? 'Search assets' : 'Search assets, e.g. santander parking'; };
  narrow.addEventListener('change', placeholder);
  placeholder();
  new SearchBox(input, byId<HTMLUListElement>('search-results'), api, (a) => observatory.pick(a));
  bindSheet();
  await observatory.start();
  document.body.dataset.ready = 'true';
}

/** On small screens the side panel is a bottom sheet that the handle opens and closes. */
function bindSheet(): void {
  const handle = byId<HTMLButtonElement>('sheet-handle');
  const panel = byId('side-panel');
  const setOpen = (open: boolean): void => {
    panel.classList.toggle('expanded', open);
    handle.setAttribute('aria-expanded', String(open));
    handle.querySelector('.visually-hidden')!.textContent = open ? 'Hide filters and list' : 'Show filters and list';
  };
  handle.addEventListener('click', () => setOpen(!panel.classList.contains('expanded')));
  // The skip link moves focus without touching the address, which holds the open asset.
  document.querySelector('.skip-link')?.addEventListener('click', (ev) => {
    ev.preventDefault();
    setOpen(true);
    byId('asset-list').focus();
  });
}

main().catch(() => notify('The observatory could not start. Please reload the page.'));
