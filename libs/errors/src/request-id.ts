import { randomUUID } from 'node:crypto';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id is kept when it is a plain token; otherwise (or when absent) one is made. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && ACCEPTABLE.test(header) ? header : `req_${randomUUID().replaceAll('-', '')}`;
}
