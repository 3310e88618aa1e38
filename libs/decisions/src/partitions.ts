/**
 * Every key hash maps to one of P partitions; each partition has one owner (a quota-actor) at a time and its
 * own NATS subjects. Only the SHA-256 of a key ever travels (docs/architecture.md, request flow).
 */
export const DEFAULT_PARTITIONS = 64;
export const DEFAULT_SUBJECT_PREFIX = 'gw.quota';

/** The partition of a lowercase hex SHA-256: its first 32 bits modulo P (uniform, stable across processes). */
export function partitionOf(keyHash: string, partitions: number): number {
  return Number.parseInt(keyHash.slice(0, 8), 16) % partitions;
}

export interface PartitionSubjects {
  /** Batches of decisions for the partition's keys. */
  decide: string;
  /** Key changes (revoke, rotate, settings) that the owner must apply before acknowledging. */
  control: string;
}

export function partitionSubjects(prefix: string, partition: number): PartitionSubjects {
  return { decide: `${prefix}.p${partition}.decide`, control: `${prefix}.p${partition}.control` };
}

/**
 * Where one actor node takes the batches of all the partitions it owns (NodeBatch). Node ids may hold dots or
 * other characters that mean something in a subject; they become one plain token.
 */
export function nodeDecideSubject(prefix: string, nodeId: string): string {
  return `${prefix}.node.${nodeId.replace(/[^A-Za-z0-9_-]/g, '_')}.decide`;
}

/**
 * Where owners announce that a key changed (created, edited, revoked, rotated, its plan changed): callers holding a
 * refusal for it (RefusalHold) drop it, so nobody is refused longer than the owner would refuse them.
 */
export function keyChangedSubject(prefix: string): string {
  return `${prefix}.key_changed`;
}
