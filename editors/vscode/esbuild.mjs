// Bundles the extension (Node, CommonJS, `vscode` external) and the chat
// webview (browser IIFE with markdown-it and highlight.js) into dist/.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const production = !watch;

const builds = [
  {
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
    sourcemap: !production,
    minify: production,
  },
  {
    entryPoints: ['webview/main.ts'],
    outfile: 'dist/webview.js',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    sourcemap: !production,
    minify: production,
  },
  {
    entryPoints: ['webview/style.css'],
    outfile: 'dist/webview.css',
    bundle: true,
    minify: production,
  },
];

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map(b => esbuild.build({ ...b, logLevel: 'warning' })));
}
