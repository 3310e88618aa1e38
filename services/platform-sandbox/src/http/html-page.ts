import { escapeHtml } from '@gateway/errors';

/** The skeleton every simulated platform page shares; `css` gives each platform its own look. */
export function htmlPage(title: string, css: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
${css}
  .note { color: #555; font-size: .85rem; }
  .error { color: #b00020; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}
