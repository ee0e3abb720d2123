#!/usr/bin/env bash
# One commit message's shape: a subject of at most 72 characters, then a blank
# line before any body. Reads the message from FILE (git's commit-msg hook
# passes one; .pre-commit-config.yaml runs this there) or standard input;
# prints what is wrong and exits 1, or exits 0. scripts/lint.sh runs it over
# the commits since the check began.
#   scripts/check_commit_message.sh [FILE] [NAME]
set -euo pipefail
message=$(grep -v '^#' "${1:-/dev/stdin}" || true)
name=${2:-the commit message}
subject=$(sed -n 1p <<<"$message")
second=$(sed -n 2p <<<"$message")
ok=0
if ((${#subject} > 72)); then
  echo "$name: the subject is ${#subject} characters, over 72: $subject"
  ok=1
fi
if [[ -n $second ]]; then
  echo "$name: no blank line between the subject and the body"
  ok=1
fi
exit $ok
