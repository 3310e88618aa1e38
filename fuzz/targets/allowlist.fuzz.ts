/*
 * Allowlist and path templates (libs/catalogue registry, spec 4.2/4.3 rule 3) and edge-auth's classifyTarget.
 * Properties: an accepted path equals an allowlisted path byte for byte, or matches a template with only digit
 * ids in the {name} segments; the method check admits only the endpoint's own method; nothing throws.
 */
import { PROVIDER_IDS, endpointsOf, findEndpoint, isAllowedMethod, type EndpointSpec } from '@gateway/catalogue';
import { classifyTarget } from '../../services/edge-auth/src/routing/request-target';
import { Input, mutate, violated } from './input';

const TEMPLATE_SEGMENT = /^\{[A-Za-z][A-Za-z0-9_]*\}$/;
const METHODS = ['GET', 'POST', 'get', 'Get', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'GET ', ' GET', ''];

function admissible(endpoint: EndpointSpec, path: string): boolean {
  if (path === endpoint.path) return true;
  const want = endpoint.path.split('/');
  const got = path.split('/');
  if (want.length !== got.length || !want.some((segment) => TEMPLATE_SEGMENT.test(segment))) return false;
  return want.every((segment, i) =>
    TEMPLATE_SEGMENT.test(segment) ? /^[0-9]{1,20}$/.test(got[i]!) : segment === got[i],
  );
}

function check(provider: (typeof PROVIDER_IDS)[number], path: string, method: string): void {
  const endpoint = findEndpoint(provider, path);
  if (endpoint === undefined) return;
  if (endpoint.provider !== provider || !endpointsOf(provider).includes(endpoint)) {
    violated('endpoint of another provider', { provider, path, endpoint: endpoint.path });
  }
  if (!admissible(endpoint, path))
    violated('non-allowlisted path admitted', { provider, path, endpoint: endpoint.path });
  if (isAllowedMethod(endpoint, method) && method !== endpoint.method) {
    violated('non-allowlisted method admitted', { provider, path, method, endpointMethod: endpoint.method });
  }
}

export function fuzz(data: Buffer): void {
  const input = new Input(data);
  const provider = input.pick(PROVIDER_IDS);
  const endpoints = endpointsOf(provider);
  // Half the time start from an allowlisted path (templates filled with digits), else from raw bytes.
  let path: string;
  if (endpoints.length > 0 && input.bool()) {
    const base = input.pick(endpoints).path.replace(/\{[A-Za-z][A-Za-z0-9_]*\}/g, () => String(input.byte() * 7919));
    path = mutate(input, base);
  } else {
    path = input.string(128);
  }
  const method = input.bool() ? input.pick(METHODS) : input.string(8);
  check(provider, path, method);

  const query = input.string(64);
  const rawUrl = input.bool() ? `/v1/${provider}${path}${query === '' ? '' : `?${query}`}` : input.rest();
  const target = classifyTarget(rawUrl);
  if (target.kind === 'provider' && target.endpoint !== undefined) {
    if (!admissible(target.endpoint, target.path) || target.endpoint.provider !== target.provider) {
      violated('classifyTarget admitted a non-allowlisted path', { rawUrl, endpoint: target.endpoint.path });
    }
    if (!rawUrl.startsWith(`/v1/${target.provider}${target.path}`)) {
      violated('classifyTarget path is not the raw path', { rawUrl, path: target.path });
    }
  }
}
