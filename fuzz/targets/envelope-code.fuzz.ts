/*
 * provider-proxy's envelope scanner (adapters/envelope-code.ts), which reads a platform answer's top-level error code
 * without parsing the rest. Properties: never throws and gives a number, a string or undefined; on a JSON object it
 * gives what JSON.parse reads for the member, unless the member is there more than once (the scanner takes the
 * first, JSON.parse the last).
 */
import { envelopeCode } from '../../services/provider-proxy/src/adapters/envelope-code';
import { Input, mutate, violated } from './input';

const FIELDS = ['code', 'error'];
const SEEDS = [
  '{"code":0,"message":"OK","request_id":"2026","data":{"list":[{"id":"7001"}],"page_info":{"page":1}}}',
  '{"code":40105,"message":"Access token is incorrect or has been revoked.","data":{}}',
  '{"error":"error_auth","message":"Invalid access_token.","request_id":"r","response":{}}',
  '{ "data" : [1, "]", {"code": 2}] , "code" : "40001" }',
  '{"c\\u006fde":-1.5e2,"x":"\\"\\\\"}',
];

function reference(text: string, field: string): number | string | undefined {
  try {
    const value = (JSON.parse(text) as Record<string, unknown>)[field];
    return typeof value === 'number' || typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A member name written twice, or written with an escape that could spell it: JSON.parse keeps the last one. */
function mayRepeat(text: string, field: string): boolean {
  return text.split(`"${field}"`).length > 2 || text.includes('\\u');
}

function scalar(input: Input): unknown {
  switch (input.byte() % 6) {
    case 0:
      return input.byte() * 257 - 30_000;
    case 1:
      return input.byte() / 7;
    case 2:
      return input.string(16);
    case 3:
      return input.pick([true, false, null]);
    case 4:
      return Array.from({ length: input.byte() % 3 }, () => input.string(8));
    default:
      return { [input.pick([...FIELDS, 'x'])]: input.string(8), n: [input.byte(), { y: input.string(4) }] };
  }
}

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const field = input.pick(FIELDS);
  const mode = input.byte() % 3;
  const text =
    mode === 0
      ? input.rest()
      : mode === 1
        ? mutate(input, input.pick(SEEDS))
        : JSON.stringify(
            Object.fromEntries(
              Array.from({ length: input.byte() % 5 }, () => [
                input.pick([...FIELDS, 'data', input.string(6)]),
                scalar(input),
              ]),
            ),
            null,
            input.bool() ? 1 : undefined,
          );
  let got: number | string | undefined;
  try {
    got = envelopeCode(Buffer.from(text, 'utf8'), field);
  } catch (error) {
    violated('envelopeCode threw', { text, field, error: String(error) });
  }
  if (got !== undefined && typeof got !== 'number' && typeof got !== 'string') violated('not a code', { text, got });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    if (got !== undefined) violated('a code outside an object', { text, got });
    return;
  }
  const expected = reference(text, field);
  if (!Object.is(got, expected) && !mayRepeat(text, field))
    violated('differs from JSON.parse', { text, field, got, expected });
}
