import { ratioAgainst } from './targets';

describe('a ratio set against its target', () => {
  it('keeps the digits asked for when they cannot be mistaken for the bound', () => {
    expect(ratioAgainst(0.41234, 0.3, 3)).toBe('0.412');
    expect(ratioAgainst(6.157, 3, 2)).toBe('6.16');
    expect(ratioAgainst(0.3, 0.3, 3)).toBe('0.300');
  });

  it('shows a miss that would round onto the bound with the digits that tell it apart, on either side', () => {
    expect(ratioAgainst(0.29981181623622866, 0.3, 3)).toBe('0.2998');
    expect(ratioAgainst(0.4999996, 0.5, 3)).toBe('0.4999996');
    expect(ratioAgainst(3.004, 3, 2)).toBe('3.004');
  });

  it('says n/a for a ratio that could not be measured', () => {
    expect(ratioAgainst(Number.NaN, 0.5, 3)).toBe('n/a');
  });
});
