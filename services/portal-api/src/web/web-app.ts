import express, { type Express } from 'express';
import { join } from 'node:path';

/** The pages of the web app: one HTML shell, rendered per path by public/app.js (no build step). */
export const WEB_PAGES = [
  '/',
  '/sign-in',
  '/sign-up',
  '/keys',
  '/connections',
  '/connections/search-ads',
  '/usage',
  '/mcp',
] as const;

/** services/portal-api/public, from src/web (development) and dist/web (built) alike. */
const PUBLIC_DIR = join(__dirname, '..', '..', 'public');

export function serveWebApp(app: Express): void {
  app.use('/assets', express.static(PUBLIC_DIR, { index: false, fallthrough: false, maxAge: 0 }));
  for (const page of WEB_PAGES) {
    app.get(page, (_req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.sendFile(join(PUBLIC_DIR, 'index.html'));
    });
  }
}
