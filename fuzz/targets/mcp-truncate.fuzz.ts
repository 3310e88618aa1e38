/*
 * MCP output handling (services/mcp-server untrusted/): parseLossless, neutraliseJson, truncateJson, restoreText,
 * fenceUntrusted, exactly as call-endpoint.tool.ts chains them on a platform answer.
 * Properties: nothing throws; the text passed on parses as JSON, fits the budget when truncated, and every
 * integer of more than 15 digits in it is written exactly as in the platform's text (ids above 2^53 exact);
 * restoreValue holds such ids as their exact digit strings; the fence round-trips through unfence.
 */
import { fenceUntrusted, unfence } from '../../services/mcp-server/src/untrusted/fence';
import { parseLossless } from '../../services/mcp-server/src/untrusted/lossless-json';
import { neutraliseJson } from '../../services/mcp-server/src/untrusted/neutralise';
import { truncateJson } from '../../services/mcp-server/src/untrusted/truncate';
import { Input, violated } from './input';

const LONG_DIGITS = /\d{16}/;
const NUMBER_TOKEN = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/**
 * FUZZ_MCP_VALID_JSON_ONLY=1 skips answers that JSON.parse itself refuses: parseLossless accepts some of them (a
 * long number token that is not a JSON number, e.g. "-0617283945061728394.5" or "12345678901234567890."), and
 * this mode lets a run look past that known finding.
 */
const VALID_JSON_ONLY = process.env.FUZZ_MCP_VALID_JSON_ONLY === '1';

/** Builds a platform-like answer with 64-bit ids, so the fuzzer spends its time near the interesting shapes. */
function structured(input: Input): string {
  const records = Array.from({ length: input.byte() % 40 }, () => {
    const id = `${1 + (input.byte() % 9)}${String(input.byte()).padStart(3, '0')}${'7'.repeat(12 + (input.byte() % 6))}`;
    return `{"id":${input.bool() ? '-' : ''}${id},"name":${JSON.stringify(input.string(12))},"v":${input.pick(['1.5', '1e400', '12345678901234567.5', '0', 'null', 'true', '"x"'])}}`;
  });
  return `{"code":0,"data":{"list":[${records.join(',')}],"page_info":{"total":${input.byte()}}}${input.string(16)}}`;
}

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const budget = 50 + input.byte() * 8;
  const raw = input.bool() ? structured(input) : input.rest();
  if (VALID_JSON_ONLY && !isJson(raw)) return;
  const parsed = parseLossless(raw, 'f00dfeedbeef');
  if (parsed === undefined) return;
  const value = neutraliseJson(parsed.value, raw);
  const serialized = JSON.stringify(value);
  const cut = truncateJson(value, budget, serialized);
  const text = parsed.restoreText(cut.truncated ? JSON.stringify(cut.value) : serialized);
  let reparsed: unknown;
  try {
    reparsed = JSON.parse(text ?? 'undefined');
  } catch (error) {
    violated('text passed on is not JSON', { raw, text, error: String(error) });
  }
  void reparsed;
  if (cut.truncated && cut.value !== null && JSON.stringify(cut.value).length > budget) {
    violated('truncated value exceeds the budget', { raw, budget, returned: cut.returnedChars });
  }
  if (cut.truncated && cut.value !== null && cut.returnedChars !== JSON.stringify(cut.value).length) {
    violated('returnedChars is not the length of the returned JSON', { raw, budget });
  }
  const rawValues = new Set((raw.match(NUMBER_TOKEN) ?? []).map(exactDecimal));
  for (const number of text.replace(/"(?:[^"\\]|\\.)*"/g, '""').match(NUMBER_TOKEN) ?? []) {
    if (LONG_DIGITS.test(number) && !rawValues.has(exactDecimal(number)))
      violated('an id changed its digits', { raw, text, number });
  }
  const restored = JSON.stringify(parsed.restoreValue(cut.value));
  if (restored !== undefined && restored.includes('~exact-number-'))
    violated('a marker leaked into the value', { raw, restored });
  const fenced = fenceUntrusted(text);
  if (unfence(fenced.text, fenced.nonce) !== text) violated('fence does not round-trip', { text });
}

/** A number token as sign, significant digits and exponent, so equal decimal values compare equal as strings. */
function exactDecimal(token: string): string {
  const [, sign, whole, fraction = '', exponent = '0'] = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(token)!;
  const digits = `${whole}${fraction}`;
  const significant = digits.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return '0';
  const trailingZeros = digits.length - digits.replace(/0+$/, '').length;
  const scale = BigInt(exponent) - BigInt(fraction.length) + BigInt(trailingZeros);
  return `${sign}${significant}e${scale}`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
