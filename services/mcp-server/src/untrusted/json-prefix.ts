/**
 * The longest JSON text that the first part of a JSON document can be closed into without inventing or mangling a
 * record: the prefix up to its last whole record of the outermost list (or last whole envelope member), followed by
 * the brackets still open there. For `{"code":0,"data":{"list":[{"id":1},{"id":2},{"id"` that is
 * `{"code":0,"data":{"list":[{"id":1},{"id":2}]}}`.
 *
 * call_endpoint reads at most a bounded number of bytes of a platform answer (MAX_ANSWER_BYTES); an answer cut there
 * is closed this way and then cut at record boundaries like any large answer (spec 4.3 rule 4). Undefined when the
 * prefix holds no complete member or element (a single string or number too long, or no JSON at all).
 */
export function closeJsonPrefix(prefix: string): string | undefined {
  /** The closing brackets of the containers open at the current position, innermost last. */
  let closers = '';
  /** How many of them are arrays. */
  let openArrays = 0;
  let inString = false;
  let escaped = false;
  /** The best cut so far: the text up to `end` is complete once `endClosers` is appended. */
  let end = -1;
  let endClosers = '';
  /**
   * A cut between two members or elements of the innermost container keeps only whole records when no array encloses
   * that container: between the records of the outermost list, or between envelope members around it. Inside a
   * record it would keep a record without some of its fields, or a nested list shortened.
   */
  const cutsWhole = () => openArrays - (closers.endsWith(']') ? 1 : 0) === 0;
  for (let i = 0; i < prefix.length; i++) {
    const char = prefix.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (char === BACKSLASH) escaped = true;
      else if (char === QUOTE) inString = false;
      continue;
    }
    switch (char) {
      case QUOTE:
        inString = true;
        break;
      case OPEN_BRACKET:
        // The outermost list closed empty says no more than a cut one (the answer is marked truncated).
        if (openArrays === 0) {
          end = i + 1;
          endClosers = `${closers}]`;
        }
        closers += ']';
        openArrays += 1;
        break;
      case OPEN_BRACE:
        // The document closed empty keeps the platform's shape; an object inside would claim members it lacks.
        if (closers === '') {
          end = i + 1;
          endClosers = '}';
        }
        closers += '}';
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (char === CLOSE_BRACKET) openArrays -= 1;
        closers = closers.slice(0, -1);
        if (closers === '') return prefix.slice(0, i + 1);
        if (cutsWhole()) {
          end = i + 1;
          endClosers = closers;
        }
        break;
      case COMMA:
        if (cutsWhole()) {
          end = i;
          endClosers = closers;
        }
        break;
    }
  }
  if (end < 0) return undefined;
  return prefix.slice(0, end) + [...endClosers].reverse().join('');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
