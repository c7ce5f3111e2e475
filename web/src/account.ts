import type { Auth } from './auth';
import { byId } from './dom';
import { notify } from './notify';

/** The sign-in / sign-out button and the signed-in name in the top bar. */

export function bindAccount(auth: Auth): void {
  const button = byId<HTMLButtonElement>('sign-in');
  const name = byId('user-name');

  const render = (): void => {
    const user = auth.username;
    name.hidden = !user;
    name.textContent = user ?? '';
    if (user) name.setAttribute('title', `Signed in as ${user}`);
    button.textContent = user ? 'Sign out' : 'Sign in';
    button.classList.toggle('button-primary', !user);
    button.dataset.testid = user ? 'sign-out' : 'sign-in';
    button.setAttribute('aria-label', user ? `Sign out ${user}` : 'Sign in to see your experiment assets');
  };

  button.addEventListener('click', () => {
    if (auth.username) {
      auth.signOut();
      notify('You are signed out.', 'info', 3000);
      return;
    }
    button.disabled = true;
    auth.signIn().catch((err: unknown) => {
      button.disabled = false;
      notify(err instanceof Error ? err.message : 'Signing in is not available right now.');
    });
  });

  auth.onChange(render);
  render();
}
