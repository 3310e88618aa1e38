import type { ProviderId } from '@gateway/catalogue';
import type { z } from 'zod';
import { QpsGuard } from '../limits/qps-guard';
import type { ProviderAdapter } from './provider-adapter';

/** Settings every adapter's QPS guard shares. */
export interface SharedAdapterSettings {
  QPS_QUEUE_LIMIT: number;
  QPS_MAX_WAIT_MS: number;
  /** Unix ms (signatures, token expiry); injectable for tests. */
  now: () => number;
}

/**
 * One provider's layer in provider-proxy: its environment variables (merged into the service's config schema)
 * and how its adapter is built from them. `create` answers undefined when the provider is not configured on
 * this deployment (no app credentials): its paths are then refused before any platform call.
 */
export interface ProviderPlugin<Env extends Record<string, unknown> = Record<string, unknown>> {
  provider: ProviderId;
  env: z.ZodRawShape;
  create(env: Env, shared: SharedAdapterSettings): ProviderAdapter | undefined;
}

/**
 * The platform (like the sandbox) counts an exact sliding one-second window per app; arrival jitter between
 * requests spaced exactly 1/qps apart would otherwise earn a rate-limit error. 10% of the window (the app
 * then sends at most qps / 1.1 per second) also covers a platform that counts at processing time while busy.
 */
const QPS_WINDOW_MARGIN_MS = 100;

export function appGuard(qps: number, burst: number, shared: SharedAdapterSettings): QpsGuard {
  return new QpsGuard({
    qps,
    burst,
    maxQueue: shared.QPS_QUEUE_LIMIT,
    maxWaitMs: shared.QPS_MAX_WAIT_MS,
    windowMarginMs: QPS_WINDOW_MARGIN_MS,
  });
}
