// The dashboard SPA: built into web/dist, served by the service under /dashboard (src/modules/dashboard).
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  plugins: [react()],
  // The service sends a strict Content-Security-Policy (script-src 'self'): no inline polyfill script.
  build: { outDir: 'dist', emptyOutDir: true, modulePreload: { polyfill: false }, sourcemap: false },
  logLevel: 'warn',
});
