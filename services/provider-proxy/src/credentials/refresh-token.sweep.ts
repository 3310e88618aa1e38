import type { Logger } from '@gateway/telemetry';
import type { ProviderAdapter } from '../adapters/provider-adapter';
import { NEVER_CANCELLED } from '../proxy/cancellation';
import type { ConnectionLister, ConnectionSource } from './connection.source';
import type { RenewalLease } from './renewal-lease';
import type { TokenRenewer } from './token-renewer';

export interface RefreshTokenSweepOptions {
  lister: ConnectionLister;
  source: ConnectionSource;
  renewer: TokenRenewer;
  lease: RenewalLease;
  /** The adapters whose connections hold a refresh token (kind `refreshable`). */
  adapters: readonly ProviderAdapter[];
  /** Connections whose refresh token has less than this left are renewed. */
  marginMs: number;
  intervalMs: number;
  /** Most renewals per scan, and connections read per page. */
  batch: number;
  logger?: Logger;
  now?: () => number;
}

export interface SweepReport {
  /** False when another replica swept within the interval. */
  swept: boolean;
  examined: number;
  renewed: number;
  failed: number;
}

/** Lease key of the sweep itself; hyphens keep it apart from account ids. */
const SWEEP_LEASE = 'refresh-token-sweep';
/** How long a sweep waits for another replica's renewal of one connection before it leaves it to the next scan. */
const WAIT_MS = 30_000;

/**
 * Refresh tokens are used only when a request needs a new access token, and they expire (30 days on the
 * marketplace): a connection nobody calls for that long would die. The sweep renews, in the background, the
 * connections whose refresh token is close to expiry. One replica sweeps per interval (a lease of one interval
 * in the renewal bucket), each renewal goes through the TokenRenewer (single-flight per connection across
 * replicas, stored before use), and a scan makes at most `batch` renewals: the rest waits for the next scan.
 */
export class RefreshTokenSweep {
  private readonly adapters: ReadonlyMap<string, ProviderAdapter>;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly options: RefreshTokenSweepOptions) {
    this.adapters = new Map(
      options.adapters.filter((a) => a.tokens.kind === 'refreshable').map((a) => [a.provider, a] as const),
    );
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (this.adapters.size === 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => {
      if (this.running !== undefined) return;
      this.running = this.scan()
        .catch((error: unknown) => this.options.logger?.warn({ err: errorName(error) }, 'refresh-token sweep failed'))
        .finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops scheduling scans; resolves when the scan in progress (if any) is done. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  async scan(): Promise<SweepReport> {
    const { lister, lease, batch, logger } = this.options;
    const report: SweepReport = { swept: false, examined: 0, renewed: 0, failed: 0 };
    // Not released: other replicas skip this interval.
    if (!(await lease.acquire(SWEEP_LEASE, this.options.intervalMs))) return report;
    report.swept = true;
    const providers = [...this.adapters.keys()];
    let after: string | undefined;
    while (report.renewed + report.failed < batch) {
      const page = await lister.listRefreshDue(providers, new Date(this.now() + this.options.marginMs), after, batch);
      for (const { accountId, provider } of page) {
        if (report.renewed + report.failed >= batch) break;
        report.examined += 1;
        const outcome = await this.renewIfDue(accountId, this.adapters.get(provider)!);
        if (outcome === 'renewed') report.renewed += 1;
        if (outcome === 'failed') report.failed += 1;
      }
      if (page.length < batch) break;
      after = page[page.length - 1]!.accountId;
    }
    if (report.renewed + report.failed > 0) logger?.info({ ...report }, 'refresh-token sweep done');
    return report;
  }

  private async renewIfDue(accountId: string, adapter: ProviderAdapter): Promise<'renewed' | 'skipped' | 'failed'> {
    const { source, renewer, marginMs, logger } = this.options;
    let lookup;
    try {
      lookup = await source.lookup(accountId);
    } catch {
      return 'skipped';
    }
    if (!lookup.found || !lookup.active || !renewer.refreshTokenDue(lookup.credentials, marginMs)) return 'skipped';
    const result = await renewer.renew({
      accountId,
      adapter,
      seen: lookup.credentials,
      refused: false,
      refreshTokenMarginMs: marginMs,
      deadline: this.now() + WAIT_MS,
      stopWaiting: NEVER_CANCELLED,
    });
    if (result.ok) return result.renewed ? 'renewed' : 'skipped';
    logger?.warn({ account_id: accountId, provider: adapter.provider, reason: result.reason }, 'sweep renewal failed');
    return 'failed';
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
