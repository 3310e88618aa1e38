import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One piece of output to search: where it came from (service, kind) and its text. */
export interface Material {
  source: string;
  text: string;
}

/** A secret found where it must not be. */
export interface Finding {
  secret: string;
  needle: string;
  source: string;
  excerpt: string;
}

/**
 * The secret values a run handed out or used, each with the strings to look for: the value itself, its URL- and
 * JSON-escaped forms, and distinctive 16-character pieces (middle and end) so a truncated or re-wrapped copy is
 * found too.
 */
export class SecretBook {
  private readonly needles = new Map<string, string>();
  private readonly labels = new Map<string, string>();

  /** Registers `value` under `label`; values shorter than 12 characters are not distinctive enough and refused. */
  add(label: string, value: string | undefined | null): void {
    if (!value) throw new Error(`secret ${label} is empty: the workload did not produce it`);
    if (value.length < 12) throw new Error(`secret ${label} is too short to search for (${value.length} chars)`);
    if (this.labels.has(value)) return;
    this.labels.set(value, label);
    const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
    for (const form of forms) this.needles.set(form, label);
    if (value.length >= 32) {
      const middle = Math.floor(value.length / 2) - 8;
      this.needles.set(value.slice(middle, middle + 16), `${label} (middle 16 chars)`);
      this.needles.set(value.slice(-16), `${label} (last 16 chars)`);
    }
  }

  /** A PEM private key: the whole text and every base64 line of its body. */
  addPem(label: string, pem: string | undefined): void {
    if (!pem) throw new Error(`secret ${label} is empty`);
    this.add(label, pem);
    pem
      .split('\n')
      .filter((line) => line.length >= 16 && !line.startsWith('-----'))
      .forEach((line, index) => this.add(`${label} line ${index + 1}`, line));
  }

  /** How many distinct secret values are registered. */
  get size(): number {
    return this.labels.size;
  }

  has(value: string): boolean {
    return this.labels.has(value);
  }

  /** Every place in `material` where a needle occurs. */
  scan(material: Material[]): Finding[] {
    const findings: Finding[] = [];
    for (const { source, text } of material) {
      for (const [needle, secret] of this.needles) {
        const at = text.indexOf(needle);
        if (at < 0) continue;
        findings.push({
          secret,
          needle: `${needle.slice(0, 6)}…(${needle.length} chars)`,
          source,
          excerpt: text.slice(Math.max(0, at - 120), at + needle.length + 60),
        });
      }
    }
    return findings;
  }
}

type OtlpAttribute = { key: string; value: { stringValue?: string } };
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { name: string; kind?: number }[] }[];
  }[];
}

/**
 * An OTLP/HTTP receiver (JSON protocol, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) that keeps every export body as
 * received, whatever the signal (traces, metrics, logs), and counts spans per service.name.
 */
export class OtlpCollector {
  readonly bodies: { path: string; contentType: string; body: string }[] = [];
  readonly spansByService = new Map<string, number>();
  private readonly spans: Material[] = [];
  private readonly resources: Material[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const contentType = req.headers['content-type'] ?? '';
        this.bodies.push({ path: req.url ?? '', contentType, body });
        if (req.url === '/v1/traces' && contentType.includes('json')) this.count(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private count(body: string): void {
    const traces = JSON.parse(body) as OtlpTraces;
    for (const resourceSpans of traces.resourceSpans ?? []) {
      const service =
        resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue ??
        '?';
      this.resources.push({ source: `span resource ${service}`, text: JSON.stringify(resourceSpans.resource ?? {}) });
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({ source: `span ${service} "${span.name}" (kind ${span.kind})`, text: JSON.stringify(span) });
        }
      }
      const spans = (resourceSpans.scopeSpans ?? []).reduce((sum, scope) => sum + (scope.spans?.length ?? 0), 0);
      this.spansByService.set(service, (this.spansByService.get(service) ?? 0) + spans);
    }
  }

  /**
   * What to scan: each span (attributes, events, links, status) and each resource as its own piece, named after
   * its service and span name; export bodies of other signals or encodings whole.
   */
  material(): Material[] {
    const others = this.bodies
      .filter(({ path, contentType }) => path !== '/v1/traces' || !contentType.includes('json'))
      .map(({ path, contentType, body }) => ({ source: `OTLP export ${path} (${contentType})`, text: body }));
    return [...this.spans, ...this.resources, ...others];
  }

  get spanCount(): number {
    return [...this.spansByService.values()].reduce((sum, count) => sum + count, 0);
  }

  close(): void {
    this.server?.close();
  }
}
