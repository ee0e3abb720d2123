#!/usr/bin/env bash
# The habits the repository keeps without a reviewer, each a check that fails
# the test run (scripts/test.sh runs this first):
#   - C++ formatted by clang-format 14 with .clang-format (Debian's clang-format-14;
#     `scripts/lint.sh --fix` rewrites the files instead). Its own tables and JSON
#     in raw strings may pass the 100 columns; nothing else does.
#   - Python checked by ruff (ruff.toml: pyflakes, bugbear, pycodestyle's
#     errors, import order), from scripts/requirements-lint.txt in build/lint-venv;
#     --fix applies its safe fixes.
#   - TypeScript and JavaScript: Prettier (.prettierrc.json, the JupyterLab
#     extension template's options) over both npm packages' code, and ESLint
#     with the template's configuration (labextension/eslint.config.mjs) over
#     the extension's TypeScript: errors fail, warnings are printed.
#   - commit messages: a subject of at most 72 characters, then a blank line
#     before the body, for every commit since the check began (older ones are
#     history; a clone without them fails and says so).
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

venv=build/lint-venv
scripts/venv.sh "$venv" scripts/requirements-lint.txt lint
mapfile -t python < <(git ls-files '*.py')
if ((fix)); then
  "$venv/bin/ruff" check --quiet --fix "${python[@]}" || true
elif "$venv/bin/ruff" check --quiet --output-format concise "${python[@]}"; then
  echo "lint: ${#python[@]} Python files pass ruff ($(sed -n 's/^ruff==//p' scripts/requirements-lint.txt))"
else
  echo "lint: ruff's findings above (ruff.toml); scripts/lint.sh --fix applies the safe fixes"
  status=1
fi

if ((fix)); then
  npx --no-install prettier --log-level warn --write labextension wasm
  (cd labextension && npx --no-install eslint --fix .) || true
else
  if npx --no-install prettier --log-level warn --check labextension wasm; then
    echo "lint: the npm packages' code as Prettier lays it out"
  else
    echo "lint: the files above differ from Prettier's layout; scripts/lint.sh --fix rewrites them"
    status=1
  fi
  if (cd labextension && npx --no-install eslint --max-warnings 1000 .) >"${TMPDIR:-/tmp}/eslint.$$" 2>&1; then
    echo "lint: ESLint finds no error in the extension's TypeScript ($(grep -oE '[0-9]+ warnings?' "${TMPDIR:-/tmp}/eslint.$$" | head -1 || echo "0 warnings"))"
  else
    cat "${TMPDIR:-/tmp}/eslint.$$"
    echo "lint: ESLint's errors above (labextension/eslint.config.mjs)"
    status=1
  fi
  rm -f "${TMPDIR:-/tmp}/eslint.$$"
fi

first=3cd1f2e2b9f1378ece7952cec8c47e0da4776f8f
if ! git cat-file -e "$first^{commit}" 2>/dev/null; then
  echo "lint: commit $first, where the message check begins, is not in this clone (a shallow clone? git fetch --unshallow)"
  status=1
else
  bad=0
  count=0
  while read -r commit; do
    count=$((count + 1))
    git log -1 --format=%B "$commit" | scripts/check_commit_message.sh - "lint: ${commit:0:10}" || bad=1
  done < <(git rev-list "$first^..HEAD")
  if ((bad)); then status=1; else echo "lint: $count commit messages since ${first:0:10}: subjects of at most 72 characters"; fi
fi
exit $status
