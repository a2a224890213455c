import { defineConfig } from 'vite';

/**
 * The console is served by the back office at /console/. React's JSX is compiled by esbuild (the
 * automatic runtime), so no Vite plugin is needed; every asset, fonts included, is bundled.
 */
export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
    rollupOptions: {
      // TanStack Query marks its modules "use client" for React Server Components; a browser bundle has none.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
