// Where the tests find the native build and the shared corpora.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const packageDir = fileURLToPath(new URL('..', import.meta.url));
export const repoDir = path.resolve(packageDir, '..');
export const sharedDir =
  process.env.TIGHTPACK_SHARED_DIR ?? path.resolve(repoDir, '..', 'shared');
export const nativeTightpack =
  process.env.TIGHTPACK_NATIVE ??
  path.join(repoDir, 'build', 'release', 'scheduler', 'tightpack');
export const wasmCommand = path.join(packageDir, 'bin', 'tightpack-wasm.js');

export function required(file, how) {
  if (!existsSync(file)) throw new Error(`${file} is missing: ${how}`);
  return file;
}
