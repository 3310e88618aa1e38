/** Probes and scrapes arrive every few seconds and would bury the requests worth reading: they are not traced. */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(['/metrics', '/healthz', '/readyz', '/livez']);

/** Whether a request target (path and query) is a probe or a scrape. */
export function isUntracedPath(url: string | undefined): boolean {
  if (url === undefined) return false;
  const queryStart = url.indexOf('?');
  return UNTRACED_PATHS.has(queryStart === -1 ? url : url.slice(0, queryStart));
}
