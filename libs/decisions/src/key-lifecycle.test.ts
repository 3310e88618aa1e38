import type { ApiKeyRecord } from '@gateway/store';
import { KeyLifecycle } from './key-lifecycle';

function keyWithHash(hash: string): ApiKeyRecord {
  return { hash } as ApiKeyRecord;
}

describe('KeyLifecycle', () => {
  it("tells the actor of each of the customer's following keys when its connections change", async () => {
    const notified: string[] = [];
    const listFollowingConnections = jest.fn(async () => [keyWithHash('a'.repeat(64)), keyWithHash('b'.repeat(64))]);
    const lifecycle = new KeyLifecycle({
      apiKeys: {
        listFollowingConnections,
        findByKeyId: jest.fn(),
        revoke: jest.fn(),
        rotate: jest.fn(),
      },
      decisions: {
        notifyKeyChanged: async (hash: string) => {
          notified.push(hash);
        },
      },
    });
    await lifecycle.connectionsChanged('cus_1');
    expect(listFollowingConnections).toHaveBeenCalledWith('cus_1');
    expect(notified.sort()).toEqual(['a'.repeat(64), 'b'.repeat(64)]);
  });

  it('tells the actor of a changed key by its hash, and nobody for an unknown key', async () => {
    const notified: string[] = [];
    const lifecycle = new KeyLifecycle({
      apiKeys: {
        listFollowingConnections: jest.fn(),
        findByKeyId: jest.fn(async (keyId: string) => (keyId === 'known' ? keyWithHash('c'.repeat(64)) : null)),
        revoke: jest.fn(),
        rotate: jest.fn(),
      },
      decisions: {
        notifyKeyChanged: async (hash: string) => {
          notified.push(hash);
        },
      },
    });
    await lifecycle.changed('known');
    await lifecycle.changed('unknown');
    expect(notified).toEqual(['c'.repeat(64)]);
  });
});
