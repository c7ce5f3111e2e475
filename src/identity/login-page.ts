import { createHash } from 'node:crypto';
import { OIDC_PATH } from './paths.js';

/**
 * The sign-in pages: plain server-rendered HTML that works without JavaScript,
 * with labelled fields, browser autofill hints and errors announced to screen
 * readers. The one stylesheet is inline and allowed by its hash, so the page's
 * Content-Security-Policy can forbid everything else.
 */

const CSS = `
:root{color-scheme:light;--ink:#0f172a;--muted:#475569;--line:#cbd5e1;--accent:#2563eb;--accent-ink:#1d4ed8;--danger:#b91c1c;--focus:#f59e0b}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f1f5f9;color:var(--ink);
font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans',sans-serif}
main{width:100%;max-width:24rem;margin:1rem;padding:2rem;background:#fff;border-radius:10px;
box-shadow:0 1px 2px rgb(15 23 42/.06),0 8px 24px rgb(15 23 42/.10)}
h1{font-size:1.5rem;margin:0 0 .25rem}
p{margin:0 0 1.25rem;color:var(--muted)}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{width:100%;padding:.6rem .75rem;font:inherit;border:1px solid var(--line);border-radius:6px}
input[aria-invalid=true]{border-color:var(--danger)}
.error{margin:0 0 1rem;padding:.75rem;border-radius:6px;background:#fef2f2;color:var(--danger);border:1px solid #fecaca}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.65rem 1rem;font:inherit;font-weight:600;border-radius:6px;border:1px solid var(--accent);cursor:pointer}
button.primary{background:var(--accent);color:#fff}
button.primary:hover{background:var(--accent-ink)}
button.secondary{background:#fff;color:var(--accent-ink)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

/**
 * The page's security headers (those of the observatory page, with a stricter
 * policy): the form may post to this server and, since browsers apply
 * `form-action` to the redirect that follows, send the browser on to the
 * client's registered redirect URI.
 */
export function pageHeaders(redirectTarget?: string): Record<string, string> {
  const formAction = ["'self'"];
  if (redirectTarget) {
    const url = new URL(redirectTarget);
    formAction.push(url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol);
  }
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self' data:; form-action ${formAction.join(' ')}; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · OpenCity</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export interface LoginView {
  /** The application asking, as the person knows it. */
  clientName: string;
  /** The signed authorization request the form carries back. */
  request: string;
  username?: string;
  error?: string;
}

export function loginPage(view: LoginView): string {
  const invalid = view.error ? ' aria-invalid="true" aria-describedby="login-error"' : '';
  const error = view.error ? `<p class="error" id="login-error" role="alert">${escapeHtml(view.error)}</p>\n` : '';
  return layout('Sign in', `<h1>Sign in to OpenCity</h1>
<p>to continue to <strong>${escapeHtml(view.clientName)}</strong></p>
${error}<form method="post" action="${OIDC_PATH}/auth">
<input type="hidden" name="request" value="${escapeHtml(view.request)}">
<label for="username">User name or e-mail</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required${invalid}${view.username ? ` value="${escapeHtml(view.username)}"` : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${invalid}${view.username ? ' autofocus' : ''}>
<div class="actions">
<button class="primary" type="submit">Sign in</button>
<button class="secondary" type="submit" name="cancel" value="1" formnovalidate>Cancel</button>
</div>
</form>`);
}

/** A page that only says something (an error that cannot go back to the client, or "signed out"). */
export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p role="status">${escapeHtml(message)}</p>`);
}
