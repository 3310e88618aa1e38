import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { parser as PromqlParser } from '@prometheus-io/lezer-promql' with { 'resolution-mode': 'import' };
import { PROVIDER_IDS } from '@gateway/catalogue';
import { parseAllDocuments } from 'yaml';
import { chartDir, ensureHelm, helmTemplate } from './helm';

/**
 * Policy of everything the gateway deploys, on the chart rendered with every ci/*-values.yaml and on the plain
 * manifests of k8s/: no container runs as root, lacks resources or probes, has a writable root filesystem, may
 * escalate privileges, keeps capabilities or uses an unpinned image; no token is mounted; the network policies
 * admit only what the architecture says; the chart refuses incomplete configuration.
 */
jest.setTimeout(600_000);

const root = join(__dirname, '..', '..');
const chart = chartDir;
let helm: string;

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function parseManifests(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as Obj | null)
    .filter((object): object is Obj => object !== null && typeof object === 'object');
}

function render(args: string[]): Obj[] {
  return parseManifests(helmTemplate(helm, args));
}

function renderError(args: string[]): string {
  const result = spawnSync(helm, ['template', 'gateway', chart, '--namespace', 'gateway', ...args], {
    encoding: 'utf8',
  });
  expect(result.status).not.toBe(0);
  return result.stderr;
}

beforeAll(() => {
  helm = ensureHelm();
});

const ciValues = readdirSync(join(chart, 'ci')).filter((file) => file.endsWith('-values.yaml'));
const plainManifests = [
  'k8s/namespace.yaml',
  'k8s/gateway.yaml',
  ...readdirSync(join(root, 'k8s', 'dev')).map((file) => `k8s/dev/${file}`),
];

// The package ships CommonJS for require() but declares its types for ES modules only.
const promql = (createRequire(__filename)('@prometheus-io/lezer-promql') as { parser: typeof PromqlParser }).parser;

/** Where Prometheus' own PromQL grammar (the Lezer parser its web UI uses) fails to read an expression. */
function promqlErrors(expr: string): string[] {
  const errors: string[] = [];
  promql.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(`${node.from}: ${JSON.stringify(expr.slice(node.from, node.from + 20))}`);
    },
  });
  return errors;
}

const isTestHook = (object: Obj) => object.metadata?.annotations?.['helm.sh/hook'] === 'test';

function podSpecs(objects: Obj[]): { where: string; spec: Obj; testHook: boolean }[] {
  return objects.flatMap((object) => {
    const where = `${object.kind}/${object.metadata?.name}`;
    if (object.kind === 'Pod') return [{ where, spec: object.spec as Obj, testHook: isTestHook(object) }];
    const template = object.spec?.template?.spec as Obj | undefined;
    return template ? [{ where, spec: template, testHook: false }] : [];
  });
}

function expectPodPolicy(objects: Obj[]): void {
  const pods = podSpecs(objects);
  expect(pods.length).toBeGreaterThan(0);
  for (const { where, spec, testHook } of pods) {
    const podContext = (spec.securityContext ?? {}) as Obj;
    expect({ where, automount: spec.automountServiceAccountToken }).toEqual({ where, automount: false });
    for (const container of [...(spec.initContainers ?? []), ...spec.containers] as Obj[]) {
      const id = `${where} ${container.name}`;
      const context = { ...podContext, ...(container.securityContext ?? {}) } as Obj;
      // Not root: runAsNonRoot, and no explicit user 0.
      expect({ id, runAsNonRoot: context.runAsNonRoot }).toEqual({ id, runAsNonRoot: true });
      expect({ id, uid0: context.runAsUser === 0 }).toEqual({ id, uid0: false });
      expect({ id, readOnlyRootFilesystem: container.securityContext?.readOnlyRootFilesystem }).toEqual({
        id,
        readOnlyRootFilesystem: true,
      });
      expect({ id, allowPrivilegeEscalation: container.securityContext?.allowPrivilegeEscalation }).toEqual({
        id,
        allowPrivilegeEscalation: false,
      });
      expect({ id, privileged: container.securityContext?.privileged === true }).toEqual({ id, privileged: false });
      expect({ id, drop: container.securityContext?.capabilities?.drop }).toEqual({ id, drop: ['ALL'] });
      expect({ id, add: container.securityContext?.capabilities?.add ?? [] }).toEqual({ id, add: [] });
      // Resources: requests for scheduling, a memory limit against leaks.
      expect({ id, cpu: container.resources?.requests?.cpu !== undefined }).toEqual({ id, cpu: true });
      expect({ id, memory: container.resources?.requests?.memory !== undefined }).toEqual({ id, memory: true });
      expect({ id, memoryLimit: container.resources?.limits?.memory !== undefined }).toEqual({ id, memoryLimit: true });
      // Probes, except on the one-shot helm test pod.
      if (!testHook) {
        expect({ id, liveness: container.livenessProbe !== undefined }).toEqual({ id, liveness: true });
        expect({ id, readiness: container.readinessProbe !== undefined }).toEqual({ id, readiness: true });
      }
      // A pinned image: a version tag or a digest, never latest.
      const image = String(container.image);
      const [name, digest] = image.split('@');
      const tag = name!.includes(':') ? name!.slice(name!.lastIndexOf(':') + 1) : '';
      expect({
        id,
        image,
        pinned: (tag !== '' && tag !== 'latest') || /^sha256:[a-f0-9]{64}$/.test(digest ?? ''),
      }).toEqual({ id, image, pinned: true });
      expect({ id, latest: tag === 'latest' }).toEqual({ id, latest: false });
    }
  }
  for (const account of objects.filter((object) => object.kind === 'ServiceAccount')) {
    expect({ account: account.metadata.name, automount: account.automountServiceAccountToken }).toEqual({
      account: account.metadata.name,
      automount: false,
    });
  }
}

const kindsOf = (objects: Obj[], kind: string) => objects.filter((object) => object.kind === kind);
const named = (objects: Obj[], kind: string, component: string) =>
  objects.find(
    (object) => object.kind === kind && object.metadata.labels?.['app.kubernetes.io/component'] === component,
  );
/** A component Deployment's container env, by variable name. */
const envOf = (objects: Obj[], component: string): Map<string, Obj> =>
  new Map(
    (named(objects, 'Deployment', component)!.spec.template.spec.containers[0].env as Obj[]).map((entry) => [
      entry.name as string,
      entry,
    ]),
  );

// The chart's own defaults install the whole product: they must render, and follow the same policy.
const defaultValues = 'the default values';

describe.each([defaultValues, ...ciValues])('charts/gateway with %s', (values) => {
  let objects: Obj[];
  beforeAll(() => {
    objects = render(values === defaultValues ? [] : ['--values', join(chart, 'ci', values)]);
  });

  it('renders containers that are non-root, read-only, unprivileged, resourced, probed and pinned', () => {
    expectPodPolicy(objects);
  });

  it('deploys the whole product, portal-api and oauth-server included, each with its Ingress host', () => {
    const components = kindsOf(objects, 'Deployment').map(
      (deployment) => deployment.metadata.labels['app.kubernetes.io/component'] as string,
    );
    expect(components).toEqual(
      expect.arrayContaining([
        'edge-auth',
        'mcp-server',
        'quota-actor',
        'provider-proxy',
        'oauth-server',
        'portal-api',
      ]),
    );
    const backends = kindsOf(objects, 'Ingress').flatMap((ingress) =>
      (ingress.spec.rules as Obj[]).flatMap((rule) =>
        (rule.http.paths as Obj[]).map((path) => path.backend.service.name as string),
      ),
    );
    expect(backends).toEqual(expect.arrayContaining(['gateway-oauth-server', 'gateway-portal-api']));
  });

  it('gives every Deployment a Service, a ServiceAccount, a NetworkPolicy and the OTel settings', () => {
    for (const deployment of kindsOf(objects, 'Deployment')) {
      const component = deployment.metadata.labels['app.kubernetes.io/component'] as string;
      for (const kind of ['Service', 'ServiceAccount', 'NetworkPolicy'])
        expect([component, kind, named(objects, kind, component) !== undefined]).toEqual([component, kind, true]);
      const env = (deployment.spec.template.spec.containers[0].env as Obj[]).map((entry) => entry.name as string);
      expect(env).toEqual(expect.arrayContaining(['OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES', 'HOST']));
      expect(new Set(env).size).toBe(env.length);
    }
  });

  it('lets provider-proxy take gRPC only from edge-auth and mcp-server, and quota-actor nothing but scrapes', () => {
    const proxyPolicy = named(objects, 'NetworkPolicy', 'provider-proxy')!;
    const grpcRules = (proxyPolicy.spec.ingress as Obj[]).filter((rule) =>
      (rule.ports as Obj[]).some((port) => port.port === 'grpc'),
    );
    expect(grpcRules).toHaveLength(1);
    const callers = (grpcRules[0]!.from as Obj[])
      .map((peer) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'])
      .sort();
    expect(callers).toEqual(['edge-auth', 'mcp-server']);

    const actorPolicy = named(objects, 'NetworkPolicy', 'quota-actor')!;
    for (const rule of actorPolicy.spec.ingress as Obj[]) {
      expect(rule.from?.length).toBeGreaterThan(0); // never "from anywhere"
      expect((rule.ports as Obj[]).map((port) => port.port)).toEqual(['http']); // metrics and the test pod only
    }
    const actorEgress = JSON.stringify(actorPolicy.spec.egress);
    expect(actorEgress).toContain('4222'); // NATS
    expect(actorEgress).not.toContain('provider-proxy');
  });

  it('opens ingress from outside only on the public components', () => {
    for (const policy of kindsOf(objects, 'NetworkPolicy').filter((object) => !isTestHook(object))) {
      const component = policy.metadata.labels['app.kubernetes.io/component'] as string;
      const open = (policy.spec.ingress as Obj[]).some(
        (rule) => rule.from === undefined || (rule.from as Obj[]).some((peer) => peer.ipBlock !== undefined),
      );
      const publicFrom = values.startsWith('production')
        ? JSON.stringify(policy.spec.ingress).includes('ingress-nginx')
        : open;
      expect([component, publicFrom]).toEqual([
        component,
        ['edge-auth', 'mcp-server', 'oauth-server', 'portal-api'].includes(component),
      ]);
    }
  });

  it('takes secrets from existing Secrets only (the chart creates none outside dev) and runs the sandbox only in dev', () => {
    const dev = values.startsWith('dev');
    expect(kindsOf(objects, 'Secret').length > 0).toBe(dev);
    expect(named(objects, 'Deployment', 'platform-sandbox') !== undefined).toBe(dev);
    const proxy = named(objects, 'Deployment', 'provider-proxy')!;
    const env = proxy.spec.template.spec.containers[0].env as Obj[];
    for (const name of ['MONGODB_URI', 'CREDENTIALS_ENCRYPTION_KEYS', 'VIDEO_ADS_APP_SECRET']) {
      expect(env.find((entry) => entry.name === name)?.valueFrom?.secretKeyRef?.name).toBeTruthy();
    }
  });

  it('has PDBs and HPAs that point at rendered Deployments, an Ingress to enabled Services, and a helm test pod', () => {
    const deployments = new Set(kindsOf(objects, 'Deployment').map((object) => object.metadata.name));
    for (const hpa of kindsOf(objects, 'HorizontalPodAutoscaler'))
      expect(deployments.has(hpa.spec.scaleTargetRef.name)).toBe(true);
    const services = new Set(kindsOf(objects, 'Service').map((object) => object.metadata.name));
    for (const ingress of kindsOf(objects, 'Ingress')) {
      for (const rule of ingress.spec.rules as Obj[])
        for (const path of rule.http.paths as Obj[]) expect(services.has(path.backend.service.name)).toBe(true);
    }
    expect(kindsOf(objects, 'Pod').filter(isTestHook)).toHaveLength(1);
  });
});

describe('charts/gateway', () => {
  it('creates ServiceMonitors for the components that serve /metrics when asked', () => {
    const objects = render(['--values', join(chart, 'ci', 'production-values.yaml')]);
    const monitors = kindsOf(objects, 'ServiceMonitor');
    expect(monitors.map((monitor) => monitor.metadata.labels['app.kubernetes.io/component']).sort()).toEqual([
      'edge-auth',
      'mcp-server',
      'oauth-server',
      'portal-api',
      'provider-proxy',
      'quota-actor',
    ]);
    for (const monitor of monitors) expect(monitor.spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics' });
  });

  it('creates a PrometheusRule with the gateway alerts when asked, scoped to the release namespace', () => {
    const objects = render(['--values', join(chart, 'ci', 'production-values.yaml')]);
    const [rule, ...others] = kindsOf(objects, 'PrometheusRule');
    expect(others).toHaveLength(0);
    expect(rule!.metadata).toMatchObject({ namespace: 'gateway', labels: { release: 'prometheus' } });
    const alerts = (rule!.spec.groups as Obj[]).flatMap((group) => group.rules as Obj[]);
    expect(alerts.map((alert) => alert.alert)).toEqual([
      'GatewayRestServerErrors',
      'GatewayQuotaDecisionsSlow',
      'GatewayPartitionsUnowned',
      'GatewayPlatformFailures',
      'GatewayInternalErrors',
    ]);
    for (const alert of alerts) {
      expect(['warning', 'critical']).toContain(alert.labels.severity);
      expect(alert.labels.team).toBe('data-gateway'); // alertLabels
      expect(alert.annotations.summary).toEqual(expect.any(String));
      expect(alert.annotations.description).toEqual(expect.any(String));
      // Every selector names the release's namespace, so two releases in one Prometheus do not mix.
      const selectors = [...(alert.expr as string).matchAll(/gateway_[a-z0-9_]+\{([^}]*)\}/g)];
      expect(selectors.length).toBeGreaterThan(0);
      for (const selector of selectors) expect(selector[1]).toContain('namespace="gateway"');
      expect({ alert: alert.alert, promqlErrors: promqlErrors(alert.expr as string) }).toEqual({
        alert: alert.alert,
        promqlErrors: [],
      });
      // Alertmanager templates reach Prometheus unrendered by Helm.
      expect(JSON.stringify(alert.annotations)).not.toContain('<no value>');
    }
    const byName = (name: string) => alerts.find((alert) => alert.alert === name)!;
    // The partition count is the limiter's, not a number of the alert's own.
    expect(byName('GatewayPartitionsUnowned').expr).toContain('< 256');
    expect(byName('GatewayPlatformFailures').annotations.summary).toBe(
      '{{ $labels.provider }}: {{ $labels.code }} above 1/s',
    );
  });

  it('leaves out the alerts of disabled components, and the rule unless asked', () => {
    const alertsWith = (args: string[]) =>
      kindsOf(render(['--values', join(chart, 'ci', 'minimal-values.yaml'), ...args]), 'PrometheusRule').flatMap(
        (rule) => (rule.spec.groups as Obj[]).flatMap((group) => (group.rules as Obj[]).map((alert) => alert.alert)),
      );
    expect(alertsWith([])).toEqual([]);
    const all = alertsWith(['--set', 'metrics.prometheusRule.enabled=true']);
    expect(all).toContain('GatewayRestServerErrors');
    const withoutEdge = alertsWith([
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--set',
      'components.edge-auth.enabled=false',
      '--set',
      'components.portal-api.enabled=false', // it shows the REST address, which needs edge-auth
    ]);
    expect(withoutEdge).not.toContain('GatewayRestServerErrors');
    expect(withoutEdge).not.toContain('GatewayQuotaDecisionsSlow');
    expect(withoutEdge).toContain('GatewayPartitionsUnowned');
    expect(
      renderError([
        '--values',
        join(chart, 'ci', 'minimal-values.yaml'),
        '--set',
        'metrics.prometheusRule.serverErrorRatio=2',
      ]),
    ).toMatch(/serverErrorRatio/);
  });

  it('adds a service with one components entry', () => {
    const objects = render([
      '--values',
      join(chart, 'ci', 'minimal-values.yaml'),
      '--set',
      'components.report-worker.ports[0].name=http',
      '--set',
      'components.report-worker.ports[0].containerPort=8080',
      '--set',
      'components.report-worker.ports[0].env=PORT',
      '--set',
      'components.report-worker.uses={nats,mongodb}',
    ]);
    const worker = named(objects, 'Deployment', 'report-worker')!;
    expect(worker.spec.template.spec.containers[0].image).toBe('ghcr.io/example/data-gateway/report-worker:0.1.0');
    expect((worker.spec.template.spec.containers[0].env as Obj[]).map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['NATS_URL', 'MONGODB_URI', 'PORT']),
    );
    expectPodPolicy(objects);
  });

  it('wires portal-api and oauth-server to the public hosts and the default Secret names with the default values', () => {
    const objects = render([]);
    const portal = envOf(objects, 'portal-api');
    expect(portal.get('PUBLIC_URL')?.value).toBe('https://portal.gateway.example.com');
    expect(portal.get('REST_BASE_URL')?.value).toBe('https://api.gateway.example.com');
    expect(portal.get('MCP_URL')?.value).toBe('https://mcp.gateway.example.com/mcp');
    expect(portal.get('NATS_URL')?.value).toBe('nats://nats.nats:4222');
    expect(portal.get('MONGODB_URI')?.valueFrom?.secretKeyRef?.name).toBe('gateway-mongodb');
    expect(portal.get('CREDENTIALS_ENCRYPTION_KEYS')?.valueFrom?.secretKeyRef?.name).toBe('gateway-credentials');
    expect(portal.get('VIDEO_ADS_APP_SECRET')?.valueFrom?.secretKeyRef?.name).toBe('gateway-platforms');
    const oauth = envOf(objects, 'oauth-server');
    expect(oauth.get('ISSUER')?.value).toBe('https://auth.gateway.example.com');
    expect(oauth.get('MCP_RESOURCE_URL')?.value).toBe('https://mcp.gateway.example.com/mcp');
    expect(oauth.get('OAUTH_SIGNING_KEYS')?.valueFrom?.secretKeyRef).toEqual({
      name: 'gateway-oauth-signing',
      key: 'OAUTH_SIGNING_KEYS',
    });
    expect(envOf(objects, 'mcp-server').get('AUTHORIZATION_SERVER_URL')?.value).toBe(
      'https://auth.gateway.example.com',
    );
    // mcp-server serves oauth-server's metadata at its own origin too, fetched through the Service
    expect(envOf(objects, 'mcp-server').get('AUTHORIZATION_SERVER_INTERNAL_URL')?.value).toBe(
      'http://gateway-oauth-server:8080',
    );
    const mcpEgress = named(objects, 'NetworkPolicy', 'mcp-server')!.spec.egress as Obj[];
    expect(mcpEgress).toContainEqual({
      to: [
        {
          podSelector: {
            matchLabels: { 'app.kubernetes.io/name': 'oauth-server', 'app.kubernetes.io/instance': 'gateway' },
          },
        },
      ],
      ports: [{ port: 'http', protocol: 'TCP' }],
    });
    const oauthIngress = named(objects, 'NetworkPolicy', 'oauth-server')!.spec.ingress as Obj[];
    expect(oauthIngress).toContainEqual({
      ports: [{ port: 'http', protocol: 'TCP' }],
      from: [
        {
          podSelector: {
            matchLabels: { 'app.kubernetes.io/name': 'mcp-server', 'app.kubernetes.io/instance': 'gateway' },
          },
        },
      ],
    });
    // the chart creates no Secret outside dev
    expect(kindsOf(objects, 'Secret')).toEqual([]);
  });

  it('fails without the required configuration, naming every missing Secret and NATS', () => {
    const error = renderError(
      [
        'nats.url',
        ...['mongodb', 'credentials', 'platforms', 'oauthSigning'].map((s) => `secrets.${s}.existingSecret`),
      ].flatMap((name) => ['--set', `${name}=`]),
    );
    expect(error).toContain(
      'secrets.mongodb.existingSecret is required by mcp-server, oauth-server, portal-api, provider-proxy, quota-actor',
    );
    expect(error).toContain('secrets.credentials.existingSecret is required by portal-api, provider-proxy');
    expect(error).toContain('secrets.platforms.existingSecret is required by portal-api, provider-proxy');
    expect(error).toContain('secrets.oauthSigning.existingSecret is required by oauth-server');
    expect(error).toContain(
      'nats.url (or nats.existingSecret) is required by edge-auth, mcp-server, oauth-server, portal-api, provider-proxy, quota-actor',
    );
  });

  it('fails when portal-api or oauth-server cannot name their public addresses', () => {
    const error = renderError(['--set', 'ingress.enabled=false']);
    expect(error).toContain('components.mcp-server needs PUBLIC_URL');
    expect(error).toContain('components.oauth-server needs ISSUER');
    expect(error).toContain('components.oauth-server needs MCP_RESOURCE_URL');
    expect(error).toContain('components.portal-api needs PUBLIC_URL');
    expect(error).toContain('components.portal-api needs REST_BASE_URL');
    expect(error).toContain('components.portal-api needs MCP_URL');
  });

  it("has one providers entry per provider of the catalogue's list, in its order", () => {
    const values = parseAllDocuments(readFileSync(join(chart, 'values.yaml'), 'utf8'))[0]!.toJS() as {
      providers: Record<string, unknown>;
    };
    expect(Object.keys(values.providers)).toEqual([...PROVIDER_IDS]);
  });

  it('wires every entry of providers into provider-proxy and portal-api, and into the sandbox in dev', () => {
    const production = render([
      '--values',
      join(chart, 'ci', 'minimal-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ]);
    for (const component of ['provider-proxy', 'portal-api']) {
      const env = envOf(production, component);
      expect(env.get('VIDEO_ADS_BASE_URL')?.value).toBe('https://business-api.tiktok.com');
      expect(env.get('VIDEO_SHOP_API_URL')?.value).toBe('https://open-api.tiktokglobalshop.com');
      expect(env.get('VIDEO_SHOP_AUTH_URL')?.value).toBe('https://auth.tiktok-shops.com');
      expect(env.get('VIDEO_ADS_APP_ID')?.valueFrom?.secretKeyRef).toEqual({
        name: 'gateway-platforms',
        key: 'VIDEO_ADS_APP_ID',
      });
      // optional: a platforms Secret without the video-shop app leaves video-shop unserved
      expect(env.get('VIDEO_SHOP_APP_SECRET')?.valueFrom?.secretKeyRef).toEqual({
        name: 'gateway-platforms',
        key: 'VIDEO_SHOP_APP_SECRET',
        optional: true,
      });
    }
    const proxy = envOf(production, 'provider-proxy');
    expect(proxy.get('NATS_URL')?.value).toBe('nats://nats.nats:4222');
    expect(proxy.get('RENEWAL_LEASE_BUCKET')?.value).toBeTruthy();

    const dev = render([
      '--values',
      join(chart, 'ci', 'dev-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ]);
    for (const component of ['provider-proxy', 'portal-api']) {
      const env = envOf(dev, component);
      expect(env.get('VIDEO_ADS_BASE_URL')?.value).toBe('http://gateway-platform-sandbox:8080');
      expect(env.get('VIDEO_SHOP_API_URL')?.value).toBe('http://gateway-platform-sandbox:8080/video-shop');
      expect(env.get('VIDEO_SHOP_AUTH_URL')?.value).toBe('http://gateway-platform-sandbox:8080/video-shop-auth');
    }
    const sandbox = envOf(dev, 'platform-sandbox');
    expect(sandbox.get('SANDBOX_VIDEO_SHOP_APP_KEY')?.valueFrom?.secretKeyRef?.key).toBe('VIDEO_SHOP_APP_KEY');
    // the dev Secret holds the sandbox's own default video-shop app (services/platform-sandbox/src/config.ts)
    const devPlatforms = kindsOf(dev, 'Secret').find((secret) => secret.metadata.name === 'gateway-dev-platforms')!;
    expect(devPlatforms.stringData).toMatchObject({
      VIDEO_SHOP_APP_KEY: '6sandboxshop1',
      VIDEO_SHOP_APP_SECRET: '9f2c4e6a8b0d1f3e5a7c9e1b3d5f7a9c2e4b6d8f',
    });
  });

  it('wires the three marketplace apps: one shared host, each app optional, the sandbox with its own default apps', () => {
    const apps = [
      { prefix: 'MARKETPLACE', sandbox: 'SANDBOX_MARKETPLACE_SELLER', constant: 'DEV_MARKETPLACE_SELLER_KEY' },
      { prefix: 'MARKETPLACE_ADS', sandbox: 'SANDBOX_MARKETPLACE_ADS', constant: 'DEV_MARKETPLACE_ADS_KEY' },
      {
        prefix: 'MARKETPLACE_AFFILIATE',
        sandbox: 'SANDBOX_MARKETPLACE_AFFILIATE',
        constant: 'DEV_MARKETPLACE_AFFILIATE_KEY',
      },
    ];
    const production = render([
      '--values',
      join(chart, 'ci', 'minimal-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ]);
    for (const component of ['provider-proxy', 'portal-api']) {
      const env = envOf(production, component);
      expect(env.get('MARKETPLACE_BASE_URL')?.value).toBe('https://partner.shopeemobile.com');
      for (const { prefix } of apps) {
        for (const suffix of ['PARTNER_ID', 'PARTNER_KEY']) {
          // optional: a platforms Secret without an app leaves that app unserved
          expect(env.get(`${prefix}_${suffix}`)?.valueFrom?.secretKeyRef).toEqual({
            name: 'gateway-platforms',
            key: `${prefix}_${suffix}`,
            optional: true,
          });
        }
      }
    }
    const proxy = envOf(production, 'provider-proxy');
    for (const { prefix } of apps) expect(proxy.get(`${prefix}_APP_QPS`)?.value).toBe('10');

    const dev = render([
      '--values',
      join(chart, 'ci', 'dev-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ]);
    for (const component of ['provider-proxy', 'portal-api']) {
      expect(envOf(dev, component).get('MARKETPLACE_BASE_URL')?.value).toBe(
        'http://gateway-platform-sandbox:8080/marketplace',
      );
    }
    const sandbox = envOf(dev, 'platform-sandbox');
    // the dev Secret holds the sandbox's own default apps (the marketplace module's config)
    const sandboxConfig = readFileSync(
      join(root, 'services', 'platform-sandbox', 'src', 'marketplace', 'marketplace.config.ts'),
      'utf8',
    );
    const devPlatforms = kindsOf(dev, 'Secret').find((secret) => secret.metadata.name === 'gateway-dev-platforms')!;
    for (const app of apps) {
      for (const suffix of ['PARTNER_ID', 'PARTNER_KEY']) {
        expect(sandbox.get(`${app.sandbox}_${suffix}`)?.valueFrom?.secretKeyRef?.key).toBe(`${app.prefix}_${suffix}`);
      }
      const partnerId = new RegExp(`${app.sandbox}_PARTNER_ID: partnerId\\('(\\d+)'\\)`).exec(sandboxConfig)?.[1];
      const partnerKey = new RegExp(`const ${app.constant} = '([0-9a-f]+)'`).exec(sandboxConfig)?.[1];
      expect(partnerId).toBeDefined();
      expect(partnerKey).toBeDefined();
      expect(devPlatforms.stringData).toMatchObject({
        [`${app.prefix}_PARTNER_ID`]: partnerId,
        [`${app.prefix}_PARTNER_KEY`]: partnerKey,
      });
    }

    // the three apps share one host: entries that disagree are refused
    expect(
      renderError([
        '--values',
        join(chart, 'ci', 'minimal-values.yaml'),
        '--set',
        'providers.marketplace-ads.env.MARKETPLACE_BASE_URL=https://elsewhere.example',
      ]),
    ).toContain('providers.marketplace-ads.env.MARKETPLACE_BASE_URL ("https://elsewhere.example") differs');
  });

  it("reads a platform's app credentials from a Secret of their own when its references name one", () => {
    // docs/deploy.md, "Providers and their Secret keys": the marketplace seller app in gateway-marketplace.
    const ownSecret = (existingSecret: string, secret = 'marketplace', keyOfKey = 'partnerKey') => [
      '--set-json',
      `secrets.marketplace=${JSON.stringify({
        existingSecret,
        keys: { partnerId: 'MARKETPLACE_PARTNER_ID', partnerKey: 'MARKETPLACE_PARTNER_KEY' },
      })}`,
      '--set-json',
      `providers.marketplace.secretEnv=${JSON.stringify({
        MARKETPLACE_PARTNER_ID: { secret, key: 'partnerId', optional: true },
        MARKETPLACE_PARTNER_KEY: { secret, key: keyOfKey, optional: true },
      })}`,
      '--set-json',
      `providers.marketplace.sandbox.secretEnv=${JSON.stringify({
        SANDBOX_MARKETPLACE_SELLER_PARTNER_ID: { secret, key: 'partnerId', optional: true },
        SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY: { secret, key: keyOfKey, optional: true },
      })}`,
    ];
    const minimal = [
      '--values',
      join(chart, 'ci', 'minimal-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ];
    const production = render([...minimal, ...ownSecret('gateway-marketplace')]);
    for (const component of ['provider-proxy', 'portal-api']) {
      const env = envOf(production, component);
      expect(env.get('MARKETPLACE_PARTNER_KEY')?.valueFrom?.secretKeyRef).toEqual({
        name: 'gateway-marketplace',
        key: 'MARKETPLACE_PARTNER_KEY',
        optional: true,
      });
      // the other apps stay in the platforms Secret
      expect(env.get('MARKETPLACE_ADS_PARTNER_KEY')?.valueFrom?.secretKeyRef?.name).toBe('gateway-platforms');
      expect(env.get('VIDEO_ADS_APP_SECRET')?.valueFrom?.secretKeyRef?.name).toBe('gateway-platforms');
    }

    // an entry without its Secret is named with the components that need it; a reference to nothing fails the render
    expect(renderError([...minimal, ...ownSecret('')])).toContain(
      'secrets.marketplace.existingSecret is required by portal-api, provider-proxy',
    );
    expect(renderError([...minimal, ...ownSecret('gateway-marketplace', 'nosuch')])).toContain(
      'refers to secrets.nosuch, which is not defined',
    );
    expect(renderError([...minimal, ...ownSecret('gateway-marketplace', 'marketplace', 'appSecret')])).toContain(
      'refers to secrets.marketplace.keys.appSecret, which is not defined',
    );
    // the schema refuses an empty entry name
    expect(renderError([...minimal, ...ownSecret('gateway-marketplace', '')])).toContain(
      "at '/providers/marketplace/secretEnv/MARKETPLACE_PARTNER_ID/secret': minLength: got 0, want 1",
    );

    // dev: the chart creates that Secret too, from devSecrets.values, and the sandbox reads the app from it
    const dev = render([
      '--values',
      join(chart, 'ci', 'dev-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
      ...ownSecret(''),
    ]);
    const devMarketplace = kindsOf(dev, 'Secret').find((secret) => secret.metadata.name === 'gateway-dev-marketplace')!;
    expect(Object.keys(devMarketplace.stringData).sort()).toEqual([
      'MARKETPLACE_PARTNER_ID',
      'MARKETPLACE_PARTNER_KEY',
    ]);
    expect(devMarketplace.stringData.MARKETPLACE_PARTNER_ID).toBe('2001001');
    expect(
      envOf(dev, 'platform-sandbox').get('SANDBOX_MARKETPLACE_SELLER_PARTNER_KEY')?.valueFrom?.secretKeyRef,
    ).toEqual({
      name: 'gateway-dev-marketplace',
      key: 'MARKETPLACE_PARTNER_KEY',
      optional: true,
    });
  });

  it('wires search-ads by its two platform hosts alone: no app, so no Secret key, and the sandbox in dev', () => {
    const searchAdsEnv = (env: Map<string, Obj>) => [...env.keys()].filter((name) => name.startsWith('SEARCH_ADS_'));
    const production = render([
      '--values',
      join(chart, 'ci', 'minimal-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ]);
    for (const component of ['provider-proxy', 'portal-api']) {
      const env = envOf(production, component);
      expect(env.get('SEARCH_ADS_API_URL')?.value).toBe('https://api.searchads.apple.com');
      expect(env.get('SEARCH_ADS_AUTH_URL')?.value).toBe('https://appleid.apple.com');
      // each connection is its own API user: nothing of search-ads comes from a Secret
      for (const name of searchAdsEnv(env)) expect(env.get(name)?.valueFrom).toBeUndefined();
      // the portal's link to the platform's API-user page keeps portal-api's own default in production
      expect(env.has('SEARCH_ADS_API_USERS_URL')).toBe(false);
    }
    expect(envOf(production, 'provider-proxy').get('SEARCH_ADS_QPS')?.value).toBe('20');

    const dev = render([
      '--values',
      join(chart, 'ci', 'dev-values.yaml'),
      '--set',
      'components.portal-api.enabled=true',
    ]);
    for (const component of ['provider-proxy', 'portal-api']) {
      const env = envOf(dev, component);
      expect(env.get('SEARCH_ADS_API_URL')?.value).toBe('http://gateway-platform-sandbox:8080/search-ads');
      expect(env.get('SEARCH_ADS_AUTH_URL')?.value).toBe('http://gateway-platform-sandbox:8080/search-ads-auth');
      expect(env.get('SEARCH_ADS_API_USERS_URL')?.value).toBe(
        'http://gateway-platform-sandbox:8080/search-ads-auth/api-users',
      );
    }
    // the sandbox needs nothing of search-ads (its API users are registered by the portal, or by its dev route)
    expect(searchAdsEnv(envOf(dev, 'platform-sandbox'))).toEqual([]);
  });

  it('refuses the sandbox, dev Secrets and latest tags in production', () => {
    const minimal = ['--values', join(chart, 'ci', 'minimal-values.yaml')];
    expect(renderError([...minimal, '--set', 'components.platform-sandbox.enabled=true'])).toContain(
      'needs profile dev or demo',
    );
    expect(renderError([...minimal, '--set', 'devSecrets.create=true'])).toContain(
      'devSecrets.create is only allowed with profile dev or demo',
    );
    expect(renderError([...minimal, '--set', 'components.edge-auth.image.tag=latest'])).toContain(
      '/components/edge-auth/image/tag',
    );
    expect(renderError([...minimal, '--set', 'secrets.oauthSigning.existingSecret='])).toContain(
      'secrets.oauthSigning.existingSecret is required by oauth-server',
    );
  });
});

describe.each(plainManifests)('%s', (file) => {
  it('follows the same container policy', () => {
    const objects = parseManifests(readFileSync(join(root, file), 'utf8'));
    if (file === 'k8s/namespace.yaml') {
      const deny = objects.find((object) => object.kind === 'NetworkPolicy')!;
      expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
      expect(
        objects.find((object) => object.kind === 'Namespace')!.metadata.labels['pod-security.kubernetes.io/enforce'],
      ).toBe('restricted');
      return;
    }
    expectPodPolicy(objects);
  });
});
