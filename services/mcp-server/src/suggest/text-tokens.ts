/** Words that carry no meaning for choosing an endpoint. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been by can could did do does for from get give had has have how i in is it its me ' +
    'my of on or our per please show tell that the their them these this those to us was we were what when ' +
    'where which who why will with would you your each all list see want need find one'
  ).split(' '),
);

/** Irregular forms and the few synonyms people use for the catalogue's own words. */
const CANONICAL: Readonly<Record<string, string>> = {
  ads: 'ad',
  spent: 'spend',
  spending: 'spend',
  cost: 'spend',
  costs: 'spend',
  money: 'spend',
  adgroups: 'adgroup',
  creative: 'ad',
  creatives: 'ad',
  account: 'advertiser',
  accounts: 'advertiser',
  shop: 'store',
  shops: 'store',
  sales: 'sale',
  conversions: 'conversion',
  converted: 'conversion',
  clicked: 'click',
  daily: 'day',
  hourly: 'hour',
  stats: 'statistic',
};

/**
 * A light stemmer: plural and common verb endings are dropped, so "campaigns", "clicks" and "impressions" meet
 * "campaign", "click" and "impression". Deliberately conservative (no Porter): short words and words ending in
 * "ss" are kept.
 */
export function stem(word: string): string {
  const canonical = CANONICAL[word];
  if (canonical) return canonical;
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ss') || word.endsWith('us') || word.endsWith('is')) return word;
  if (word.endsWith('es') && /(ch|sh|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  return word;
}

/**
 * Lowercase word tokens, stemmed, stop words dropped. snake_case and camelCase names split into words
 * ("stat_time_day" -> stat, time, day; "adgroup_id" -> adgroup, id), and "ad group" also yields "adgroup" so
 * both spellings meet ("ad account" yields "advertiser").
 */
export function tokenize(text: string): string[] {
  const words = text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const tokens: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    if (word === 'ad' && (next === 'group' || next === 'groups')) {
      tokens.push('adgroup');
      i++;
      continue;
    }
    // "ad account" is the advertiser account, not an ad.
    if (word === 'ad' && (next === 'account' || next === 'accounts')) {
      tokens.push('advertiser');
      i++;
      continue;
    }
    if (STOP_WORDS.has(word)) continue;
    tokens.push(stem(word));
  }
  return tokens;
}
