/** One message of a text/event-stream (comments are left out). */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** Reads text/event-stream text as it arrives, chunk by chunk, into whole messages. */
export class SseParser {
  private rest = '';

  push(chunk: string): SseMessage[] {
    const text = (this.rest + chunk).replace(/\r\n?/g, '\n');
    const blocks = text.split('\n\n');
    this.rest = blocks.pop() ?? '';
    const out: SseMessage[] = [];
    for (const block of blocks) {
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0 || id !== undefined) out.push({ id, event, data: data.join('\n') });
    }
    return out;
  }
}
