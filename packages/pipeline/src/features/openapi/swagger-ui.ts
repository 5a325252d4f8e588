import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Swagger UI files served, read once from the application's `swagger-ui-dist` package. */
export interface SwaggerUiAssets {
  readonly css: Buffer;
  readonly bundle: Buffer;
}

/**
 * Looks up the optional `swagger-ui-dist` package where the application's own import of it would
 * find it: in the `node_modules` folders from `from` (a directory, or a module's `import.meta.url`)
 * up to the root, as Node resolves a package name (its ES module resolution, which ignores
 * `NODE_PATH`), and reads the two files the page needs. It is never a dependency of this package:
 * undefined when the application has not installed it.
 */
export function loadSwaggerUi(from: string | URL): SwaggerUiAssets | undefined {
  const url = from instanceof URL ? from.href : from.startsWith('file:') ? from : undefined;
  // A module's URL names a file (start in its folder); one ending in `/` names the folder itself.
  const start = url === undefined ? resolve(from as string) : url.endsWith('/') ? fileURLToPath(url) : dirname(fileURLToPath(url));
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = join(dir, 'node_modules', 'swagger-ui-dist');
    if (existsSync(join(pkg, 'package.json'))) {
      try {
        return { css: readFileSync(join(pkg, 'swagger-ui.css')), bundle: readFileSync(join(pkg, 'swagger-ui-bundle.js')) };
      } catch {
        return undefined; // an incomplete install: the page cannot work, so it is not offered
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * The page's policy: only its own files run and load (no inline script or style, no other origin),
 * and it cannot be framed (W3C Content Security Policy Level 3). Swagger UI's icons are `data:` images.
 */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Starts Swagger UI on the document named by the page (no inline script: the policy forbids it). */
export const INIT_SCRIPT = Buffer.from(
  `'use strict';
window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({ url: root.getAttribute('data-url'), dom_id: '#swagger-ui', deepLinking: true });
});
`,
);

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The page: Swagger UI's stylesheet and script from `assets`, and the document's URL. */
export function docsPage(title: string, assets: string, documentUrl: string): Buffer {
  return Buffer.from(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeAttr(title)}</title>
<link rel="stylesheet" href="${escapeAttr(assets)}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-url="${escapeAttr(documentUrl)}"></div>
<script src="${escapeAttr(assets)}/swagger-ui-bundle.js"></script>
<script src="${escapeAttr(assets)}/init.js"></script>
</body>
</html>
`);
}
