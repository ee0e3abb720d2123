// Browsers, workers and webpack 5: the glue fetches tightpack.wasm beside it
// (new URL("tightpack.wasm", import.meta.url), which webpack emits as an asset).
import createTightpackModule from '../dist/tightpack.mjs';
import { Engine } from './engine.js';

export { Engine, Cluster } from './engine.js';

export async function loadEngine(options = {}) {
  return new Engine(await createTightpackModule({ ...options }));
}
