import type { FastifyRequest } from 'fastify';

/** Query parameters that carry credentials: their values never reach the logs. */
const SENSITIVE = /^(access_token|id_token_hint|id_token|refresh_token|token|code|code_verifier|client_secret|password|secret|state|session_state)$/i;

/** The URL with the values of credential-bearing query parameters replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) return pair;
    let name = pair.slice(0, eq);
    try {
      name = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // a malformed name is logged as it came
    }
    return SENSITIVE.test(name) ? `${pair.slice(0, eq)}=[redacted]` : pair;
  });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

/** Fastify's request log line, with the URL redacted. */
export function requestSerializer(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
