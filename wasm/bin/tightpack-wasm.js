#!/usr/bin/env node
// `tightpack-wasm replay|autoscale [--jsonl] [FILE|-]`: the input and output of
// `tightpack replay` and `tightpack autoscale`, answered by the WebAssembly
// build. Outside checks compare the two byte for byte.
import { readFileSync } from 'node:fs';
import { loadEngine } from '../lib/node.js';

const kOk = 0;
const kInputError = 1;
const kUsage = 2;

const help = {
  replay: `Usage: tightpack-wasm replay [--jsonl] [FILE|-]

Reads a scenario ({"profile", "nodes", "pods", "incoming"}, or a corpus line with
"scenario") and prints kube-scheduler's decisions as one JSON document, exactly as
\`tightpack replay\` does, computed by the WebAssembly build of the engine. A
scenario that cannot be decoded prints {"error": "…"}.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
`,
  autoscale: `Usage: tightpack-wasm autoscale [--jsonl] [FILE|-]

Reads a cluster-autoscaler scenario (the format of shared/autoscaler) and prints
its decisions exactly as \`tightpack autoscale\` does, computed by the
WebAssembly build of the engine.

  --jsonl   one scenario per input line, one result per output line, in order
  FILE      input file; '-' or nothing reads standard input
`
};

const usage = `Usage:
  tightpack-wasm replay [--jsonl] [FILE|-]
  tightpack-wasm autoscale [--jsonl] [FILE|-]
  tightpack-wasm --version
`;

// The messages strerror(3) gives, as the native command prints them.
const strerror = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long'
};

function isBlank(line) {
  for (const b of line)
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === '--version') {
    process.stdout.write(`tightpack-wasm ${(await loadEngine()).version}\n`);
    return kOk;
  }
  if (command === undefined || command === '--help' || command === '-h') {
    (command ? process.stdout : process.stderr).write(usage);
    return command ? kOk : kUsage;
  }
  if (!(command in help)) {
    process.stderr.write(
      `tightpack-wasm: unknown command ${JSON.stringify(command)}\n${usage}`
    );
    return kUsage;
  }
  let jsonl = false;
  let wantHelp = false;
  const positional = [];
  for (const a of rest) {
    if (a === '--jsonl') jsonl = true;
    else if (a === '--help') wantHelp = true;
    else if (a.length > 2 && a.startsWith('--')) {
      process.stderr.write(
        `tightpack-wasm ${command}: unknown option ${a}\n${help[command]}`
      );
      return kUsage;
    } else positional.push(a);
  }
  if (wantHelp) {
    process.stdout.write(help[command]);
    return kOk;
  }
  if (positional.length > 1) {
    process.stderr.write(
      `tightpack-wasm ${command}: at most one FILE\n${help[command]}`
    );
    return kUsage;
  }
  const path = positional[0] ?? '-';
  let text;
  try {
    text = readFileSync(path === '-' ? 0 : path);
  } catch (e) {
    process.stderr.write(
      `tightpack-wasm ${command}: cannot read ${path}: ${strerror[e.code] ?? e.message}\n`
    );
    return kInputError;
  }
  const engine = await loadEngine();
  const answer =
    command === 'replay'
      ? s => engine.replayBytes(s)
      : s => engine.autoscaleBytes(s);
  const newline = Buffer.from('\n');
  const out = [];
  if (!jsonl) {
    out.push(answer(text), newline);
  } else {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf(0x0a, start);
      if (end < 0) end = text.length;
      const line = text.subarray(start, end);
      if (!isBlank(line)) out.push(answer(line), newline);
      start = end + 1;
    }
  }
  await new Promise((resolve, reject) =>
    process.stdout.write(Buffer.concat(out), e => (e ? reject(e) : resolve()))
  );
  return kOk;
}

// A reader that stops early (`| head`) ends the native command with SIGPIPE,
// which a shell reports as 128 + 13; Node ignores the signal and raises
// EPIPE instead: end the same way, without a stack trace.
process.stdout.on('error', e => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(141);
});

process.exitCode = await main(process.argv.slice(2));
