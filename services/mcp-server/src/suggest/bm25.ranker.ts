import { tokenize } from './text-tokens';

/** One field of a document and how much a match in it counts (BM25F-style field weights). */
export interface DocumentField {
  text: string;
  weight: number;
}

export interface RankedDocument<T> {
  item: T;
  score: number;
}

interface IndexedDocument<T> {
  item: T;
  /** Weighted term frequencies over all fields. */
  frequencies: Map<string, number>;
  /** Weighted length. */
  length: number;
}

/**
 * Okapi BM25 over documents made of weighted fields (a simple BM25F): term frequencies and lengths are summed
 * with the field weights, then scored with the usual saturation (k1) and length normalisation (b), and terms
 * that occur in few documents weigh more (idf). Query and documents go through the same tokenizer.
 */
export class Bm25Ranker<T> {
  private readonly documents: IndexedDocument<T>[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    items: readonly T[],
    fieldsOf: (item: T) => DocumentField[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.documents = items.map((item) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const field of fieldsOf(item)) {
        for (const token of tokenize(field.text)) {
          frequencies.set(token, (frequencies.get(token) ?? 0) + field.weight);
          length += field.weight;
        }
      }
      return { item, frequencies, length };
    });
    for (const document of this.documents) {
      for (const term of document.frequencies.keys()) {
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      }
    }
    const total = this.documents.reduce((sum, document) => sum + document.length, 0);
    this.averageLength = this.documents.length > 0 ? total / this.documents.length : 1;
  }

  /** Every document with a positive score, best first (ties keep catalogue order). */
  rank(query: string): RankedDocument<T>[] {
    const terms = tokenize(query);
    const count = this.documents.length;
    const scored = this.documents.map((document, index) => {
      let score = 0;
      for (const term of terms) {
        const frequency = document.frequencies.get(term);
        if (!frequency) continue;
        const df = this.documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        const norm = this.k1 * (1 - this.b + (this.b * document.length) / this.averageLength);
        score += (idf * frequency * (this.k1 + 1)) / (frequency + norm);
      }
      return { item: document.item, score, index };
    });
    return scored
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .map(({ item, score }) => ({ item, score }));
  }
}
