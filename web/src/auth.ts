import type { TokenSource } from './api';
import { sha256 } from './sha256';

/** Sign-in with OAuth 2.0 authorization code + PKCE (S256) against the platform's identity provider. */

const CLIENT_ID = 'opencity-observatory';
const CONFIG_URL = '/auth/realms/opencity/.well-known/openid-configuration';
const SESSION_KEY = 'opencity.observatory.session';
const PENDING_KEY = 'opencity.observatory.pkce';

interface Session {
  accessToken: string;
  refreshToken?: string;
  expiresAt: number;
  username: string;
}

interface Pending {
  verifier: string;
  state: string;
  returnTo: string;
}

/** Why the session changed: signed in, signed out by the person, or ended by the platform. */
export type ChangeReason = 'signed-in' | 'signed-out' | 'expired';

interface ProviderConfig {
  issuer?: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  bytes.forEach((b) => { binary += String.fromCharCode(b); });
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Reads the claims of a JWT without verifying it: the platform verifies; the page only shows a name. */
function claims(jwt: string): Record<string, unknown> {
  try {
    const part = jwt.split('.')[1] ?? '';
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const text = new TextDecoder().decode(Uint8Array.from(json, (c) => c.charCodeAt(0)));
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function readJson<T>(key: string): T | null {
  try {
    const raw = sessionStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function redirectUri(): string {
  return `${location.origin}/`;
}

export class Auth implements TokenSource {
  private session: Session | null = readJson<Session>(SESSION_KEY);
  private config: ProviderConfig | null = null;
  private refreshing: Promise<string | null> | null = null;
  private readonly listeners = new Set<(reason: ChangeReason) => void>();

  get username(): string | null {
    return this.session?.username ?? null;
  }

  onChange(listener: (reason: ChangeReason) => void): void {
    this.listeners.add(listener);
  }

  private async providerConfig(): Promise<ProviderConfig> {
    if (this.config) return this.config;
    const res = await fetch(CONFIG_URL, { headers: { Accept: 'application/json' } });
    if (!res.ok) throw new Error('The sign-in service is not available right now.');
    const doc = (await res.json()) as Partial<ProviderConfig>;
    if (!doc.authorization_endpoint || !doc.token_endpoint) throw new Error('The sign-in service is misconfigured.');
    this.config = { issuer: doc.issuer, authorization_endpoint: doc.authorization_endpoint, token_endpoint: doc.token_endpoint };
    return this.config;
  }

  private store(session: Session | null, reason: ChangeReason): void {
    const had = this.session !== null;
    this.session = session;
    if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
    else sessionStorage.removeItem(SESSION_KEY);
    if (session || had) this.listeners.forEach((l) => l(reason));
  }

  private accept(body: Record<string, unknown>): Session {
    const accessToken = String(body.access_token ?? '');
    if (!accessToken) throw new Error('The sign-in service returned no access token.');
    const c = claims(accessToken);
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in : 300;
    const username = [c.preferred_username, c.email, c.sub].find((v) => typeof v === 'string' && v) as string | undefined;
    const session: Session = {
      accessToken,
      expiresAt: typeof c.exp === 'number' ? c.exp * 1000 : Date.now() + lifetime * 1000,
      username: username ?? 'signed in',
    };
    if (typeof body.refresh_token === 'string') session.refreshToken = body.refresh_token;
    return session;
  }

  private async tokenRequest(form: Record<string, string>): Promise<Session> {
    const { token_endpoint } = await this.providerConfig();
    const res = await fetch(token_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams({ client_id: CLIENT_ID, ...form }),
    });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw new Error('Signing in did not succeed. Please try again.');
    return this.accept(body);
  }

  /** Leaves the page for the identity provider's login form. */
  async signIn(): Promise<void> {
    const { authorization_endpoint } = await this.providerConfig();
    const pending: Pending = { verifier: randomString(48), state: randomString(16), returnTo: location.hash };
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
    const challenge = base64url(await sha256(new TextEncoder().encode(pending.verifier)));
    const url = new URL(authorization_endpoint, location.href);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: redirectUri(),
      scope: 'openid',
      state: pending.state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    location.assign(url.toString());
  }

  /**
   * Finishes a sign-in when the identity provider sent the browser back with `code` (or `error`).
   * Returns a sentence to show when something went wrong, else null.
   */
  async completeSignIn(): Promise<string | null> {
    const params = new URLSearchParams(location.search);
    const code = params.get('code');
    const error = params.get('error');
    if (!code && !error) return null;
    const pending = readJson<Pending>(PENDING_KEY);
    sessionStorage.removeItem(PENDING_KEY);
    history.replaceState(null, '', `/${pending?.returnTo ?? ''}`);
    if (error) return error === 'access_denied' ? 'Sign-in was cancelled.' : 'Signing in did not succeed. Please try again.';
    if (!pending || params.get('state') !== pending.state) return 'That sign-in link has expired. Please sign in again.';
    try {
      // RFC 9207: a code must come back from the provider it was asked of.
      const { issuer } = await this.providerConfig();
      const iss = params.get('iss');
      if (iss && issuer && iss !== issuer) return 'Signing in did not succeed. Please try again.';
      this.store(await this.tokenRequest({
        grant_type: 'authorization_code',
        code: code ?? '',
        redirect_uri: redirectUri(),
        code_verifier: pending.verifier,
      }), 'signed-in');
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : 'Signing in did not succeed. Please try again.';
    }
  }

  signOut(): void {
    this.store(null, 'signed-out');
  }

  rejected(): void {
    this.store(null, 'expired');
  }

  async token(): Promise<string | null> {
    const session = this.session;
    if (!session) return null;
    if (session.expiresAt - Date.now() > 15_000) return session.accessToken;
    if (!session.refreshToken) {
      this.store(null, 'expired');
      return null;
    }
    this.refreshing ??= this.tokenRequest({ grant_type: 'refresh_token', refresh_token: session.refreshToken })
      .then((next) => { this.session = next; sessionStorage.setItem(SESSION_KEY, JSON.stringify(next)); return next.accessToken; })
      .catch(() => { this.store(null, 'expired'); return null; })
      .finally(() => { this.refreshing = null; });
    return this.refreshing;
  }
}
