#!/usr/bin/env bash
# The habits the repository keeps without a reviewer, each a check that fails
# the test run (scripts/test.sh runs this first):
#   - C++ formatted by clang-format 14 with .clang-format (Debian's clang-format-14;
#     `scripts/lint.sh --fix` rewrites the files instead). Its own tables and JSON
#     in raw strings may pass the 100 columns; nothing else does.
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[[ ${1:-} == --fix ]] && fix=1
status=0

mapfile -t cxx < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' '*.hpp.in')
if ((fix)); then
  clang-format-14 -i "${cxx[@]}"
else
  if ! clang-format-14 --dry-run --Werror "${cxx[@]}" 2>"${TMPDIR:-/tmp}/clang-format.$$"; then
    grep -E '^[^ ].*: (error|warning):' "${TMPDIR:-/tmp}/clang-format.$$" | head -20
    echo "lint: $(grep -cE ': (error|warning):' "${TMPDIR:-/tmp}/clang-format.$$") places in C++ differ from clang-format-14's layout; scripts/lint.sh --fix rewrites them"
    status=1
  else
    echo "lint: ${#cxx[@]} C++ files as clang-format-14 lays them out"
  fi
  rm -f "${TMPDIR:-/tmp}/clang-format.$$"
fi
exit $status
