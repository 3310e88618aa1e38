/** One answer of the search-ads hosts: what was asked, of which API user, and the HTTP status it got. */
export interface LoggedAnswer {
  seq: number;
  /** ISO instant the answer was ready. */
  time: string;
  method: string;
  path: string;
  status: number;
}

/**
 * The statuses search-ads answered, for tests (test/dev only): the shared request log records a request on
 * arrival, before its answer exists, so whether the gateway ever met a 401 is read here. Bounded ring; sequence
 * numbers keep growing so a reader's `since` stays meaningful.
 */
export class ApiAnswerLog {
  private entries: LoggedAnswer[] = [];
  private seq = 0;

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  record(method: string, path: string, status: number): void {
    this.seq += 1;
    this.entries.push({ seq: this.seq, time: new Date(this.now()).toISOString(), method, path, status });
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
  }

  since(seq: number): LoggedAnswer[] {
    return this.entries.filter((entry) => entry.seq > seq);
  }

  lastSeq(): number {
    return this.seq;
  }
}
