import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
// During `vite` development the platform runs separately; everything it serves is proxied.
const platform = process.env.OPENCITY_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The world outlines are fetched as files, never inlined into the bundle.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: Object.fromEntries(['/discovery', '/datasource', '/auth', '/observatory'].map((p) => [p, platform])),
  },
});
