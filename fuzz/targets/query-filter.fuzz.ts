/*
 * The caller-parameter filter (provider-proxy adapters/query-filter.ts) with each provider's owned set.
 * Properties: no kept segment (nor any of its ";" pieces) has a name that normalises to an owned name; kept
 * segments are the caller's own bytes, in order; nothing throws.
 */
import { PROVIDER_IDS, ownedParamsOf } from '@gateway/catalogue';
import { filterQuery, normaliseName } from '../../services/provider-proxy/src/adapters/query-filter';
import { Input, violated } from './input';

const OWNED_NAMES = [...new Set(PROVIDER_IDS.flatMap((provider) => [...ownedParamsOf(provider)]))];
const DISGUISES = [
  '%5F',
  '%255F',
  '%2525',
  '+',
  ' ',
  '%20',
  '%00',
  '\u0000',
  '[]',
  '[x]',
  ';',
  'ＡＣＣ',
  '%C5%BF',
  'ſ',
  'K',
];

function name(input: Input): string {
  if (OWNED_NAMES.length === 0 || input.bool()) return input.string(24);
  let text = input.pick(OWNED_NAMES);
  if (input.bool()) text = text.toUpperCase();
  const at = input.byte() % (text.length + 1);
  return input.bool() ? text.slice(0, at) + input.pick(DISGUISES) + text.slice(at) : text;
}

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const provider = input.pick(PROVIDER_IDS);
  const owned = ownedParamsOf(provider);
  const parts: string[] = [];
  const count = input.byte() % 6;
  for (let i = 0; i < count; i++) parts.push(input.bool() ? `${name(input)}=${input.string(16)}` : name(input));
  const raw = input.bool() ? parts.join(input.pick(['&', ';', '&&'])) : input.rest();

  normaliseName(raw);
  const filtered = filterQuery(raw, owned);
  if (!filtered.ok) return;
  if (filtered.query === '') return;
  const original = (raw.startsWith('?') ? raw.slice(1) : raw).split('&').filter((segment) => segment !== '');
  let from = 0;
  for (const segment of filtered.query.split('&')) {
    for (const piece of segment.split(';')) {
      const pieceName = piece.includes('=') ? piece.slice(0, piece.indexOf('=')) : piece;
      if (owned.has(normaliseName(pieceName))) violated('owned parameter kept', { provider, raw, segment });
    }
    const index = original.indexOf(segment, from);
    if (index < 0) violated('kept segment is not a caller segment in order', { raw, segment });
    from = index + 1;
  }
  // What the platform reads (URLSearchParams: decoded once, "+" as space) must hold no owned name either.
  for (const [key] of new URLSearchParams(filtered.query)) {
    if (owned.has(key.toLowerCase())) violated('platform reads an owned parameter', { provider, raw, key });
  }
}
