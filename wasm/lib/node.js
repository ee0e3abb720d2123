// Node.js and Jest: the web glue would fetch() the .wasm, which Node cannot do
// for a file, so the bytes are read here and handed over.
import { readFile } from 'node:fs/promises';
import createTightpackModule from '../dist/tightpack.mjs';
import { Engine } from './engine.js';

export { Engine, Cluster } from './engine.js';

export const wasmUrl = new URL('../dist/tightpack.wasm', import.meta.url);

export async function loadEngine(options = {}) {
  const wasmBinary = options.wasmBinary ?? (await readFile(wasmUrl));
  return new Engine(await createTightpackModule({ ...options, wasmBinary }));
}
