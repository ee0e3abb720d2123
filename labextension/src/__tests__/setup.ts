// jsdom, the environment of the specs that draw (answer.spec.ts), lacks the
// TextEncoder and TextDecoder the engine's bindings copy JSON in and out of
// the WebAssembly heap with: Node's own are the same classes.
import { TextDecoder, TextEncoder } from 'node:util';

Object.assign(globalThis, { TextDecoder, TextEncoder });

// Nor has it the DragEvent Lumino's widgets module refers to when it loads
// (the preview renderer is a Widget); @jupyterlab/testing adds the same.
if (
  typeof MouseEvent !== 'undefined' &&
  typeof (globalThis as { DragEvent?: unknown }).DragEvent === 'undefined'
)
  Object.assign(globalThis, {
    DragEvent: class DragEvent extends MouseEvent {}
  });
