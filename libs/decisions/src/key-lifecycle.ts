import type { ApiKeyRecord, ApiKeyRepository, RotatedApiKey } from '@gateway/store';
import type { DecisionClient } from './decision.client';

export interface KeyLifecycleDeps {
  apiKeys: Pick<ApiKeyRepository, 'revoke' | 'rotate' | 'findByKeyId' | 'listFollowingConnections'>;
  decisions: Pick<DecisionClient, 'notifyKeyChanged'>;
}

/**
 * Key changes that must be immediate on every edge (spec 3, 5.2): MongoDB is written first, then the key's actor
 * is told and its acknowledgement awaited. When a call returns, the owner already decides with the new state, and
 * since edges hold no key state, the next request anywhere sees it.
 */
export class KeyLifecycle {
  constructor(private readonly deps: KeyLifecycleDeps) {}

  /** A new key: clears a cached "unknown key" verdict at its owner, so it works at once. */
  async created(key: Pick<ApiKeyRecord, 'hash'>): Promise<void> {
    await this.deps.decisions.notifyKeyChanged(key.hash);
  }

  /** Name, providers, connections or IP allowlist changed in MongoDB. */
  async changed(keyId: string): Promise<void> {
    const key = await this.deps.apiKeys.findByKeyId(keyId);
    if (key) await this.deps.decisions.notifyKeyChanged(key.hash);
  }

  /**
   * A connection of the customer was created or re-granted: the actors of its keys that follow connections reload
   * them, so the connection works with those keys on the next request (issue 15).
   */
  async connectionsChanged(customerId: string): Promise<void> {
    const keys = await this.deps.apiKeys.listFollowingConnections(customerId);
    await Promise.all(keys.map((key) => this.deps.decisions.notifyKeyChanged(key.hash)));
  }

  async revoke(keyId: string): Promise<ApiKeyRecord | null> {
    const key = await this.deps.apiKeys.revoke(keyId);
    if (key) await this.deps.decisions.notifyKeyChanged(key.hash);
    return key;
  }

  /**
   * Issues a new key and kills the old one. The month's count stays where it is: it is the customer's (spec 8), so
   * the old key's units remain its share of the customer's month and the new key starts its own share at zero.
   */
  async rotate(keyId: string): Promise<RotatedApiKey | null> {
    const rotated = await this.deps.apiKeys.rotate(keyId);
    if (!rotated) return null;
    await this.deps.decisions.notifyKeyChanged(rotated.replaced.hash);
    await this.deps.decisions.notifyKeyChanged(rotated.key.hash);
    return rotated;
  }
}
