// Builds the front end into dist/: the three pages, and their scripts and styles bundled by
// esbuild (chessground and its board / piece styles come from node_modules).
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';

const pages = ['index.html', 'search.html', 'tablebase.html'];

await rm('dist', { recursive: true, force: true });
await mkdir('dist/assets', { recursive: true });
await build({
  entryPoints: ['src/explorer.ts', 'src/search.ts', 'src/tablebase.ts'],
  bundle: true,
  outdir: 'dist/assets',
  format: 'esm',
  target: 'es2020',
  minify: true,
  sourcemap: true,
  loader: { '.svg': 'dataurl', '.png': 'dataurl' },
  logLevel: 'warning',
});
// The pages last: the server takes dist/ as built once every page is there.
for (const page of pages) await copyFile(`src/${page}`, `dist/${page}`);
console.log(`built dist/ (${pages.join(', ')})`);
