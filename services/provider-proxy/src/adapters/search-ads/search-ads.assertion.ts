import { jose } from './jose.runtime';

/** The platform's token audience, the same for every customer. */
export const CLIENT_ASSERTION_AUDIENCE = 'https://appleid.apple.com';
/** The assertion lives briefly: it is made for one token request. */
const ASSERTION_LIFETIME_S = 300;

export interface ApiUser {
  clientId: string;
  teamId: string;
  keyId: string;
  /** PKCS #8 PEM of the connection's EC P-256 private key. */
  privateKeyPem: string;
}

/** The ES256 client assertion of the client-credentials grant: {alg, kid} and {sub, iss, aud, iat, exp}. */
export async function clientAssertion(user: ApiUser, nowMs: number): Promise<string> {
  const key = await jose.importPKCS8(user.privateKeyPem, 'ES256');
  const iat = Math.floor(nowMs / 1000);
  return new jose.SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: user.keyId })
    .setSubject(user.clientId)
    .setIssuer(user.teamId)
    .setAudience(CLIENT_ASSERTION_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ASSERTION_LIFETIME_S)
    .sign(key);
}
