import { FormSigner } from './signed-form';

describe('signed form', () => {
  it('gives back what it signed until it expires', () => {
    let now = 1_000;
    const signer = new FormSigner(['first-key-0123456789'], 60_000, () => now);
    const token = signer.sign({ r: { client_id: 'chat' } });
    expect(signer.verify(token)).toMatchObject({ r: { client_id: 'chat' } });
    now += 60_001;
    expect(signer.verify(token)).toBeNull();
  });

  it('refuses altered payloads, foreign keys and junk', () => {
    const signer = new FormSigner(['first-key-0123456789'], 60_000);
    const token = signer.sign({ r: { client_id: 'chat' } });
    const [body, mac] = token.split('.');
    const altered = Buffer.from(Buffer.from(body!, 'base64url').toString().replace('chat', 'evil')).toString(
      'base64url',
    );
    expect(signer.verify(`${altered}.${mac}`)).toBeNull();
    expect(new FormSigner(['other-key-0123456789'], 60_000).verify(token)).toBeNull();
    for (const junk of [undefined, '', 'a.b', `${token}.x`, 42]) expect(signer.verify(junk)).toBeNull();
  });

  it('verifies with every key and signs with the first (rotation)', () => {
    const old = new FormSigner(['old-key-0123456789ab'], 60_000);
    const rotated = new FormSigner(['new-key-0123456789ab', 'old-key-0123456789ab'], 60_000);
    expect(rotated.verify(old.sign({ a: 1 }))).toMatchObject({ a: 1 });
    expect(old.verify(rotated.sign({ a: 1 }))).toBeNull();
  });
});
