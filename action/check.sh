#!/usr/bin/env bash
# Runs retrylint check for the GitHub Action: SARIF for code scanning and a Markdown
# summary for the job page (and, when asked, the pull request's comment), then the check
# itself in the chosen format, whose exit code is the step's (0 clean, 1 findings at
# --fail-on, 2 an input error).
#
# Reads: INPUT_MODE (check or diff), INPUT_PATHS, INPUT_POLICY, INPUT_ARGS (words split
# as a shell splits them, quotes and backslashes included, but nothing expanded or run),
# INPUT_BASE, INPUT_FORMAT, INPUT_FAIL_ON, INPUT_SARIF, INPUT_SUMMARY, INPUT_COMMENT,
# RUNNER_TEMP, GITHUB_BASE_REF, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT; GITHUB_SERVER_URL,
# GITHUB_REPOSITORY and HEAD_SHA (the pull request's head commit) to link each place of
# the Markdown to its file and line; for the comment, what action/comment.sh reads.
#
# In diff mode the Markdown of `check --base` is the summary and the comment, and the step
# fails on a regression (or a new finding at fail-on).
#
# The action's own input errors are one `::error::` line, before retrylint runs; an input
# error of retrylint's (a missing file) is printed once, by the check in the step's log.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=action/common.sh
. "$here/common.sh"

outputs="${GITHUB_OUTPUT:-/dev/null}"
temp="${RUNNER_TEMP:-/tmp}"
# The token is for the comment alone: retrylint never sees it.
token="${INPUT_GITHUB_TOKEN:-}"
unset INPUT_GITHUB_TOKEN

# An input error of the action: said once, and the step ends with 2.
input_error() {
  echo "::error title=retrylint input::$(workflow_escape "$1")"
  echo "exit-code=2" >> "$outputs"
  exit 2
}

# `$1` is one of the words after it, else an input error naming the input.
one_of() {
  local input="$1" value="$2" allowed
  shift 2
  for allowed in "$@"; do
    if [ "$value" = "$allowed" ]; then return 0; fi
  done
  allowed="$*"
  input_error "the $input input is '$value': it takes ${allowed// /, }"
}

mode="${INPUT_MODE:-check}"
format="${INPUT_FORMAT:-github}"
fail_on="${INPUT_FAIL_ON:-error}"
sarif="${INPUT_SARIF:-false}"
summary="${INPUT_SUMMARY:-true}"
comment="${INPUT_COMMENT:-false}"
one_of mode "$mode" check diff
# The formats of `retrylint check --format` that are meant for a log.
one_of format "$format" github human concise
one_of fail-on "$fail_on" error warning info never
one_of sarif "$sarif" true false
one_of summary "$summary" true false
one_of comment "$comment" true false

# Splits an input into the array named by $2 (no namerefs: macOS ships bash 3.2).
split_input() {
  if ! split_words "$2"; then
    input_error "the $1 input has $split_error"
  fi
}
split_input paths "${INPUT_PATHS:-.}"
paths=(${words[@]+"${words[@]}"})
split_input policy "${INPUT_POLICY:-}"
policies=(${words[@]+"${words[@]}"})
split_input args "${INPUT_ARGS:-}"
extra=(${words[@]+"${words[@]}"})

if [ ${#paths[@]} -eq 0 ]; then paths=(.); fi
args=(check "${paths[@]}")
for policy in ${policies[@]+"${policies[@]}"}; do
  args+=(-p "$policy")
done
args+=(${extra[@]+"${extra[@]}"})

# Diff mode: what the pull request changes, against its base branch.
if [ "$mode" = diff ]; then
  base="${INPUT_BASE:-}"
  if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
    base="origin/$GITHUB_BASE_REF"
  fi
  if [ -z "$base" ]; then
    input_error "diff mode needs a base revision: the base input, or a pull request's base branch"
  fi
  args+=(--base "$base")
  if [ "$sarif" = true ]; then
    echo "retrylint: SARIF is written in check mode only; diff mode annotates the pull request instead"
  fi
  sarif=false
fi

# The runs before the check keep their standard error aside: when one stops on an input
# error, the check (which would stop on it too) is the one that prints it.
aside="$temp/retrylint-aside.txt"
: > "$aside"
stopped=false

if [ "$sarif" = true ]; then
  sarif_file="$temp/retrylint.sarif"
  rm -f "$sarif_file"
  retrylint "${args[@]}" --format sarif --output "$sarif_file" --fail-on never --quiet 2> "$aside"
  if [ $? -eq 2 ]; then stopped=true; fi
  if [ -s "$sarif_file" ]; then
    echo "sarif-file=$sarif_file" >> "$outputs"
  else
    echo "retrylint: no SARIF was written; nothing goes to code scanning"
  fi
fi

markdown="$temp/retrylint-summary.md"
rm -f "$markdown"
# Places in the Markdown link to their file and line at the head commit (paths are as
# shown, relative to the workspace the step runs in). Only a well-formed commit and
# repository make a link; anything else leaves the places as plain text.
links=()
server="${GITHUB_SERVER_URL:-}"
if [[ "${HEAD_SHA:-}" =~ ^[0-9a-f]{40}$ ]] && [[ "${GITHUB_REPOSITORY:-}" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] \
  && [[ "$server" =~ ^https?://[A-Za-z0-9.-]+(:[0-9]+)?$ ]]; then
  links=(--source-links "$server/$GITHUB_REPOSITORY/blob/$HEAD_SHA")
fi
wants_summary=false
if [ "$summary" = true ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then wants_summary=true; fi
if ! $stopped && { $wants_summary || [ "$comment" = true ]; }; then
  retrylint "${args[@]}" --format markdown ${links[@]+"${links[@]}"} --fail-on never --quiet > "$markdown" 2> "$aside"
  if [ $? -eq 2 ]; then
    stopped=true
    rm -f "$markdown"
  elif $wants_summary; then
    cat "$markdown" >> "$GITHUB_STEP_SUMMARY"
  fi
fi

retrylint "${args[@]}" --format "$format" --fail-on "$fail_on"
code=$?
if $stopped && [ "$code" -ne 2 ]; then
  # Something only the run before hit (its output file, say): show it.
  cat "$aside" >&2
fi
echo "exit-code=$code" >> "$outputs"

if [ "$comment" = true ]; then
  if [ -s "$markdown" ]; then
    INPUT_GITHUB_TOKEN="$token" bash "$here/comment.sh" "$markdown"
  else
    echo "retrylint: no Markdown to comment with (the check stopped on an input error)"
  fi
fi
exit "$code"
