/**
 * name/value pairs of a raw query string, decoded the way the platform reads them ("+" is a space): the values the
 * Shop Partner API signature (videoShopSign of @gateway/platform-grants) is computed over.
 */
export function decodedPairs(query: string): Array<[string, string]> {
  return [...new URLSearchParams(query).entries()];
}
