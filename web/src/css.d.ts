// Lets TypeScript (editors, or `npx -p typescript tsc -p web`) accept the style sheets the
// pages import; esbuild bundles them.
declare module '*.css';
