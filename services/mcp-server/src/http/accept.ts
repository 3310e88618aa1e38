/** How an MCP POST is answered: one JSON body, or an SSE stream (MCP Streamable HTTP). */
export type ResponseMode = 'json' | 'sse';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/**
 * Chooses JSON or SSE from the Accept header (RFC 9110 section 12.5.1): each of application/json and
 * text/event-stream gets the q of the most specific range that matches it; the higher wins, JSON on a tie (a
 * stateless server has nothing to stream). No Accept header means anything is acceptable. Undefined when the
 * client accepts neither.
 */
export function chooseResponseMode(accept: string | undefined): ResponseMode | undefined {
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = accept.split(',').flatMap(parseRange);
  const json = qualityOf(ranges, 'application', 'json');
  const sse = qualityOf(ranges, 'text', 'event-stream');
  if (json <= 0 && sse <= 0) return undefined;
  return json >= sse ? 'json' : 'sse';
}

function parseRange(text: string): MediaRange[] {
  const [media, ...params] = text.split(';').map((part) => part.trim());
  const [type, subtype] = (media ?? '').toLowerCase().split('/');
  if (!type || !subtype) return [];
  let q = 1;
  for (const param of params) {
    const [name, value] = param.split('=').map((part) => part.trim());
    if (name?.toLowerCase() === 'q') q = Math.min(1, Math.max(0, Number(value) || 0));
  }
  return [{ type, subtype, q }];
}

function qualityOf(ranges: MediaRange[], type: string, subtype: string): number {
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q)) {
      best = { specificity, q: range.q };
    }
  }
  return best?.q ?? 0;
}
