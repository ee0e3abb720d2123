// jsdom, the environment of the specs that draw (answer.spec.ts), lacks the
// TextEncoder and TextDecoder the engine's bindings copy JSON in and out of
// the WebAssembly heap with: Node's own are the same classes.
import { TextDecoder, TextEncoder } from 'node:util';

Object.assign(globalThis, { TextDecoder, TextEncoder });
