import { redactQueryValues } from './safe-attributes';

describe('incoming query redaction', () => {
  it('keeps the names and drops every value, whatever the name', () => {
    expect(redactQueryValues('page=2&APP_SECRET=s3cr3t&app%5Fsecret=x&partner_key=k&flag')).toBe(
      'page=REDACTED&APP_SECRET=REDACTED&app%5Fsecret=REDACTED&partner_key=REDACTED&flag',
    );
  });

  it('drops a name that is itself a long token', () => {
    expect(redactQueryValues(`${'a'.repeat(80)}=1`)).toBe('REDACTED=REDACTED');
  });
});
