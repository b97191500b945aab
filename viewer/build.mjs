// Builds the viewer into one folder of static files: index.html, viewer.js, viewer.css.
//   node build.mjs [OUTDIR]     (default: dist)
// `abdyn view` copies these files and writes data.js (the model and trajectory) beside them.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] || join(here, 'dist'));
mkdirSync(out, { recursive: true });
await build({
  entryPoints: { viewer: join(here, 'src', 'main.js') },
  bundle: true,
  format: 'iife',
  minify: true,
  target: 'es2020',
  outdir: out,
  logLevel: 'warning',
  legalComments: 'linked',
});
copyFileSync(join(here, 'src', 'index.html'), join(out, 'index.html'));
