import cluster from 'node:cluster';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'gateway:metrics-request';
const REPLY = 'gateway:metrics-reply';

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}

interface MetricsReply {
  type: typeof REPLY;
  id: number;
  body?: string;
  contentType?: string;
  error?: string;
}

function isRequest(message: unknown): message is MetricsRequest {
  return typeof message === 'object' && message !== null && (message as MetricsRequest).type === REQUEST;
}

function isReply(message: unknown): message is MetricsReply {
  return typeof message === 'object' && message !== null && (message as MetricsReply).type === REPLY;
}

/**
 * /metrics of one worker process of a service that runs several (node:cluster): the registry joins the cluster's,
 * and a scrape, whichever worker it reaches, answers the series of every worker added up by the primary (counters
 * and histograms summed, each default metric as prom-client aggregates it).
 */
export function clusterMetricsHandler(
  registry: Registry,
  timeoutMs = 5_000,
): (req: IncomingMessage, res: ServerResponse) => void {
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener that answers the primary's collection requests.
  new AggregatorRegistry();
  const pending = new Map<number, (reply: Omit<MetricsReply, 'type' | 'id'>) => void>();
  let nextId = 0;
  process.on('message', (message: unknown) => {
    if (!isReply(message)) return;
    pending.get(message.id)?.(message);
    pending.delete(message.id);
  });
  return (req, res) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      pending.delete(id);
      answer({ error: 'the primary process did not answer' });
    }, timeoutMs);
    const answer = (reply: Omit<MetricsReply, 'type' | 'id'>) => {
      clearTimeout(timer);
      if (reply.body === undefined) {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'text/plain; charset=utf-8');
        res.end(`metrics collection failed: ${reply.error ?? 'no metrics'}\n`);
        return;
      }
      res.statusCode = 200;
      res.setHeader('Content-Type', reply.contentType ?? registry.contentType);
      res.end(req.method === 'HEAD' ? undefined : reply.body);
    };
    pending.set(id, answer);
    process.send!({ type: REQUEST, id } satisfies MetricsRequest);
  };
}

/** In the primary process: answers every worker's metrics request with the whole cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    const reply = (fields: Omit<MetricsReply, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: REPLY, id: message.id, ...fields } satisfies MetricsReply);
    };
    aggregator.clusterMetrics().then(
      (body) => reply({ body, contentType: aggregator.contentType }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
