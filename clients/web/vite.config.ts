import { defineConfig } from "vite";

// A static bundle in dist/, served by the gateway's browser port (or any web server).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false },
});
