import type { OAuthGrantRepository, PortalSessionRepository, SignInThrottle, Store } from '@gateway/store';
import type { Logger } from '@gateway/telemetry';
import type { Request } from 'express';
import type { StaticClients } from './clients/static-clients';
import type { OAuthKeyService } from './grant/oauth-key.service';
import type { CookieJar } from './http/cookies';
import type { FormSigner } from './http/signed-form';

/** Everything the handlers use, passed in so the pieces can be swapped. */
export interface OAuthDeps {
  /** The issuer (no trailing slash); known only after listening when ISSUER is unset. */
  issuer(): string;
  /** The MCP URL: the only resource and the audience of every token. */
  resource: string;
  scopes: readonly string[];
  clients: StaticClients;
  store: Pick<Store, 'customers' | 'apiKeys' | 'connections'>;
  grants: OAuthGrantRepository;
  sessions: PortalSessionRepository;
  keys: OAuthKeyService;
  signer: FormSigner;
  cookies: CookieJar;
  throttle: SignInThrottle;
  clientAddress(req: Request): string;
  ttl: { codeMs: number; accessMs: number; refreshMs: number; sessionMs: number };
  logger: Logger;
}
