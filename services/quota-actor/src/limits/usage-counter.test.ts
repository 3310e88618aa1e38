import { UsageCounter } from './usage-counter';

const NOW = Date.UTC(2026, 10, 22, 10);

describe('usage counter', () => {
  it('hands unflushed counts to the ledger once, with per-day deltas', () => {
    const usage = new UsageCounter('2026-11', { used: 5, reserved: 10, suggestionsUsed: 0, carriedOver: 0 });
    usage.count(NOW);
    usage.count(NOW);
    usage.countSuggestion();
    expect(usage.drain()).toEqual({ used: 2, suggestions: 1, days: { '22': 2 } });
    expect(usage.drain()).toBeNull();
    expect(usage.used).toBe(7);
  });

  it('gives a refunded unit back even after it was flushed', () => {
    const usage = new UsageCounter('2026-11', { used: 0, reserved: 10, suggestionsUsed: 0, carriedOver: 0 });
    usage.count(NOW);
    usage.drain();
    usage.refund(NOW, 1);
    expect(usage.used).toBe(0);
    expect(usage.drain()).toEqual({ used: -1, suggestions: 0, days: { '22': -1 } });
  });

  it('never refunds below zero', () => {
    const usage = new UsageCounter('2026-11', { used: 0, reserved: 0, suggestionsUsed: 0, carriedOver: 0 });
    usage.refund(NOW, 3);
    expect(usage.used).toBe(0);
    expect(usage.drain()).toBeNull();
  });

  it('restores a delta whose write failed', () => {
    const usage = new UsageCounter('2026-11', { used: 0, reserved: 10, suggestionsUsed: 0, carriedOver: 0 });
    usage.count(NOW);
    const delta = usage.drain()!;
    usage.count(NOW);
    usage.restore(delta);
    expect(usage.drain()).toEqual({ used: 2, suggestions: 0, days: { '22': 2 } });
  });
});
