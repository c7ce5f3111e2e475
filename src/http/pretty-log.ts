/**
 * Readable log lines for a person at a terminal (LOG_FORMAT=pretty). The
 * logger still builds its JSON line; this turns each one into
 * `HH:MM:SS LEVEL message key=value …`. Machines keep the JSON (LOG_FORMAT=json).
 */

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every line has, or that say nothing to a person reading one process's output. */
const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'err']);

function shownValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One JSON log line as one readable line; a line that is not JSON is kept as it is. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(json);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return json.trimEnd();
    entry = parsed as Record<string, unknown>;
  } catch {
    return json.trimEnd();
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 19) : '--:--:--';
  const level = (LEVELS[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  const fields = Object.keys(entry).filter((k) => !OMITTED.has(k)).map((k) => `${k}=${shownValue(entry[k])}`);
  const err = entry.err as { type?: unknown; message?: unknown; stack?: unknown } | undefined;
  const parts = [time, level, typeof entry.msg === 'string' ? entry.msg : '', ...fields].filter((p) => p !== '');
  const stack = err && typeof err.stack === 'string' ? `\n${err.stack}` : err ? `\n${String(err.type)}: ${String(err.message)}` : '';
  return `${parts.join(' ')}${stack}`;
}

/** A destination for the logger that writes readable lines to `out`. */
export function prettyStream(out: { write(text: string): unknown }): { write(chunk: string): void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line.trim() !== '') out.write(`${prettyLine(line)}\n`);
    },
  };
}
