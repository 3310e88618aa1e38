import express, { type Express } from 'express';
import { join } from 'node:path';

/**
 * The pages of the web app: one HTML shell, rendered per path by public/app.js (no build step). Besides these, each
 * key-pair provider's connect page (`/connections/<provider>`, connections/key-pair-flow.ts).
 */
export const WEB_PAGES = ['/', '/sign-in', '/sign-up', '/keys', '/connections', '/usage', '/mcp'] as const;

/** services/portal-api/public, from src/web (development) and dist/web (built) alike. */
const PUBLIC_DIR = join(__dirname, '..', '..', 'public');

export function serveWebApp(app: Express, options: { connectPages: readonly string[] }): void {
  app.use('/assets', express.static(PUBLIC_DIR, { index: false, fallthrough: false, maxAge: 0 }));
  for (const page of [...WEB_PAGES, ...options.connectPages]) {
    app.get(page, (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.sendFile(join(PUBLIC_DIR, 'index.html'));
    });
  }
}
