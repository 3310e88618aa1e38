import type { OAuthGrant } from '@gateway/store';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { StaticClient } from '../clients/static-clients';
import type { OAuthDeps } from '../oauth.deps';
import { authenticateClient } from './client-auth';
import { OAuthProtocolError, sendOAuthError } from './oauth-error';
import { verifiesS256 } from './pkce';

/** /token (authorization_code, refresh_token) and /revoke (RFC 7009). */
export function tokenRoutes(deps: OAuthDeps): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });
  const noStore = (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    next();
  };

  /** The grant's key must still be active: revoking "<assistant> (OAuth)" in the portal ends refreshes too. */
  const requireActiveKey = async (grant: OAuthGrant) => {
    const key = await deps.store.apiKeys.findByHash(grant.key_hash);
    if (key === null || key.status !== 'active') {
      await deps.grants.revokeFamily(grant.family_id);
      throw new OAuthProtocolError('invalid_grant', 'the permission was revoked in the portal');
    }
  };

  const issue = async (grant: OAuthGrant) => {
    const tokens = await deps.grants.issueTokens(grant, { accessMs: deps.ttl.accessMs, refreshMs: deps.ttl.refreshMs });
    return {
      access_token: tokens.access_token,
      token_type: 'Bearer',
      expires_in: Math.floor(deps.ttl.accessMs / 1000),
      refresh_token: tokens.refresh_token,
      scope: grant.scopes.join(' '),
    };
  };

  const authorizationCode = async (client: StaticClient, body: Record<string, string | undefined>) => {
    if (body.code === undefined || body.redirect_uri === undefined || body.code_verifier === undefined) {
      throw new OAuthProtocolError('invalid_request', 'code, redirect_uri and code_verifier are required');
    }
    const taken = await deps.grants.takeCode(body.code);
    if (taken.status === 'reused') {
      throw new OAuthProtocolError('invalid_grant', 'the code was used before; its tokens are revoked');
    }
    if (taken.status !== 'ok') throw new OAuthProtocolError('invalid_grant', 'the code is unknown or expired');
    const grant = taken.grant;
    if (grant.client_id !== client.clientId) {
      throw new OAuthProtocolError('invalid_grant', 'the code was issued to another client');
    }
    if (grant.redirect_uri !== body.redirect_uri) {
      throw new OAuthProtocolError('invalid_grant', 'redirect_uri differs from the authorization request');
    }
    if (!verifiesS256(body.code_verifier, grant.code_challenge)) {
      throw new OAuthProtocolError('invalid_grant', 'code_verifier does not match the code_challenge');
    }
    if (body.resource !== undefined && body.resource !== grant.resource) {
      throw new OAuthProtocolError('invalid_target', 'resource differs from the authorization request');
    }
    await requireActiveKey(grant);
    return issue(grant);
  };

  const refreshToken = async (client: StaticClient, body: Record<string, string | undefined>) => {
    if (body.refresh_token === undefined) throw new OAuthProtocolError('invalid_request', 'refresh_token is required');
    // The client check comes before rotation: another client's attempt must not burn the holder's token.
    const found = await deps.grants.findToken(body.refresh_token);
    if (found === null || found.kind !== 'refresh' || found.client_id !== client.clientId) {
      throw new OAuthProtocolError('invalid_grant', 'the refresh token is unknown');
    }
    if (body.resource !== undefined && body.resource !== found.resource) {
      throw new OAuthProtocolError('invalid_target', 'resource differs from the original grant');
    }
    const requested = body.scope === undefined ? found.scopes : body.scope.split(/ +/).filter(Boolean);
    if (requested.some((scope) => !found.scopes.includes(scope))) {
      throw new OAuthProtocolError('invalid_scope', 'a refresh cannot widen the scope');
    }
    const rotated = await deps.grants.rotateRefreshToken(body.refresh_token);
    if (rotated.status === 'reused') {
      throw new OAuthProtocolError('invalid_grant', 'the refresh token was used before; the grant is revoked');
    }
    if (rotated.status !== 'ok')
      throw new OAuthProtocolError('invalid_grant', 'the refresh token is revoked or expired');
    await requireActiveKey(rotated.grant);
    return issue({ ...rotated.grant, scopes: requested });
  };

  router.post('/token', noStore, form, async (req, res) => {
    try {
      const body = singleValues(req.body);
      const client = authenticateClient(req, body, deps.clients);
      if (body.grant_type === 'authorization_code') res.json(await authorizationCode(client, body));
      else if (body.grant_type === 'refresh_token') res.json(await refreshToken(client, body));
      else {
        throw new OAuthProtocolError(
          'unsupported_grant_type',
          'grant_type must be authorization_code or refresh_token',
        );
      }
    } catch (error) {
      if (!(error instanceof OAuthProtocolError)) throw error;
      sendOAuthError(res, error);
    }
  });

  // RFC 7009: any token of the family revokes the whole family; an unknown token is answered 200 as well.
  router.post('/revoke', noStore, form, async (req, res) => {
    try {
      const body = singleValues(req.body);
      const client = authenticateClient(req, body, deps.clients);
      if (body.token === undefined) throw new OAuthProtocolError('invalid_request', 'token is required');
      const found = await deps.grants.findToken(body.token);
      if (found !== null && found.client_id === client.clientId) await deps.grants.revokeFamily(found.family_id);
      res.status(200).end();
    } catch (error) {
      if (!(error instanceof OAuthProtocolError)) throw error;
      sendOAuthError(res, error);
    }
  });

  return router;
}

/** Form fields as single strings; a repeated parameter is refused (RFC 6749 section 3.2). */
function singleValues(body: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw new OAuthProtocolError('invalid_request', `${name} must be given once`);
    out[name] = value;
  }
  return out;
}
