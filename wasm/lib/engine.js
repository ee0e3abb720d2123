// The engine's JavaScript face, shared by the browser and the Node entry
// points: inputs are copied into the WebAssembly heap as UTF-8 bytes, answers
// are copied out as bytes, and every failure is a value, never a throw.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function bytesOf(input, what) {
  if (input instanceof Uint8Array) return { bytes: input };
  if (typeof input === 'string') return { bytes: encoder.encode(input) };
  if (input !== null && typeof input === 'object') {
    try {
      return { bytes: encoder.encode(JSON.stringify(input)) };
    } catch (e) {
      return { error: `${what}: cannot be written as JSON: ${e.message}` };
    }
  }
  const got = input === null ? 'null' : typeof input;
  return {
    error: `${what}: expected a JSON string, UTF-8 bytes or an object, got ${got}`
  };
}

function ok(value) {
  return { ok: true, value };
}

function failure(error) {
  return { ok: false, error };
}

class Heap {
  constructor(module) {
    this.module = module;
  }

  // Calls fn with (pointer, length) of each input's bytes in the heap, then
  // frees them: nothing an answer needs stays allocated.
  withBytes(inputs, fn) {
    const pointers = [];
    try {
      const args = [];
      for (const bytes of inputs) {
        const pointer = bytes.length ? this.module._malloc(bytes.length) : 0;
        if (bytes.length && !pointer) {
          return encoder.encode(
            JSON.stringify({
              error: `out of memory: ${bytes.length} bytes of input`
            })
          );
        }
        pointers.push(pointer);
        // HEAPU8 is replaced when memory grows: read it after malloc.
        if (bytes.length) this.module.HEAPU8.set(bytes, pointer);
        args.push(pointer, bytes.length);
      }
      return this.take(fn(...args));
    } finally {
      for (const p of pointers) if (p) this.module._free(p);
    }
  }

  take(text) {
    try {
      const start = text.data();
      return this.module.HEAPU8.slice(start, start + text.size());
    } finally {
      text.delete();
    }
  }
}

function answer(bytes) {
  const value = JSON.parse(decoder.decode(bytes));
  if (
    value !== null &&
    typeof value === 'object' &&
    typeof value.error === 'string' &&
    Object.keys(value).length === 1
  ) {
    return failure(value.error);
  }
  return ok(value);
}

export class Cluster {
  #heap;
  #handle;
  #loaded;

  constructor(heap, handle, loaded) {
    this.#heap = heap;
    this.#handle = handle;
    this.#loaded = loaded;
  }

  get loaded() {
    return this.#loaded;
  }

  place(request) {
    return this.#ask('place', request);
  }

  explain(request) {
    return this.#ask('explain', request);
  }

  advise(request) {
    return this.#ask('advise', request);
  }

  forecast(request = {}) {
    return this.#ask('forecast', request);
  }

  summary() {
    if (!this.#handle) return failure('the cluster was disposed');
    return answer(this.#heap.take(this.#handle.summary()));
  }

  dispose() {
    if (this.#handle) this.#handle.delete();
    this.#handle = null;
  }

  #ask(method, request) {
    if (!this.#handle) return failure('the cluster was disposed');
    const input = bytesOf(request, 'request');
    if (input.error) return failure(input.error);
    return answer(
      this.#heap.withBytes([input.bytes], (p, n) => this.#handle[method](p, n))
    );
  }
}

export class Engine {
  #module;
  #heap;

  constructor(module) {
    this.#module = module;
    this.#heap = new Heap(module);
  }

  get version() {
    return this.#module.version();
  }

  replayBytes(scenario) {
    return this.#document('replay', scenario);
  }

  replay(scenario) {
    return decoder.decode(this.replayBytes(scenario));
  }

  autoscaleBytes(scenario) {
    return this.#document('autoscale', scenario);
  }

  autoscale(scenario) {
    return decoder.decode(this.autoscaleBytes(scenario));
  }

  quantity(text) {
    if (typeof text !== 'string')
      return failure(`quantity: expected a string, got ${typeof text}`);
    return answer(this.#document('quantity', text));
  }

  loadCluster(snapshot, options = {}) {
    const inputs = [];
    for (const [value, what, optional] of [
      [snapshot, 'snapshot', false],
      [options.pools, 'pools', true],
      [options.schedulerConfig, 'schedulerConfig', true]
    ]) {
      if (optional && (value === undefined || value === null)) {
        inputs.push(new Uint8Array(0));
        continue;
      }
      const input = bytesOf(value, what);
      if (input.error) return failure(input.error);
      inputs.push(input.bytes);
    }
    const handle = new this.#module.LoadedCluster();
    const loaded = answer(
      this.#heap.withBytes(inputs, (...args) => handle.load(...args))
    );
    if (!loaded.ok) {
      handle.delete();
      return loaded;
    }
    return ok(new Cluster(this.#heap, handle, loaded.value));
  }

  memoryBytes() {
    return this.#module.HEAPU8.length;
  }

  heapBytesInUse() {
    return this.#module.heapBytesInUse();
  }

  #document(method, scenario) {
    const input = bytesOf(scenario, 'scenario');
    if (input.error)
      return encoder.encode(JSON.stringify({ error: input.error }));
    return this.#heap.withBytes([input.bytes], (p, n) =>
      this.#module[method](p, n)
    );
  }
}
