// One engine per page: the WebAssembly module is compiled once, the first
// time the panel opens.
import { Engine, loadEngine } from '@tightpack/wasm';

let engine: Promise<Engine> | null = null;

export function loadTightpack(): Promise<Engine> {
  engine = engine ?? loadEngine();
  return engine;
}
