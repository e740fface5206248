#!/usr/bin/env bash
# Runs retrylint check for the GitHub Action: SARIF for code scanning and a Markdown
# summary for the job page when asked, then the check itself in the chosen format, whose
# exit code is the step's (0 clean, 1 findings at --fail-on, 2 input error).
#
# Reads: INPUT_MODE (check or diff), INPUT_PATHS, INPUT_POLICY (several separated by
# spaces, or one per line), INPUT_BASE, INPUT_FORMAT, INPUT_FAIL_ON, INPUT_SARIF,
# INPUT_SUMMARY, INPUT_ARGS, RUNNER_TEMP, GITHUB_BASE_REF, GITHUB_STEP_SUMMARY,
# GITHUB_OUTPUT.
#
# In diff mode the Markdown of `check --base` goes to the job summary and the step
# fails on a regression (or a new finding at fail-on).
set -uo pipefail

# One argument per line when the value has several lines, else per space; never a
# pattern expanded by the shell (retrylint expands quoted globs itself).
split() {
  set -f
  if [[ "$1" == *$'\n'* ]]; then
    printf '%s\n' "$1"
  else
    # shellcheck disable=SC2086
    printf '%s\n' $1
  fi | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d'
  set +f
}

# Reads lines into the array named $1 (without mapfile: macOS ships bash 3.2).
read_into() {
  local name="$1" line
  eval "$name=()"
  while IFS= read -r line; do
    eval "$name+=(\"\$line\")"
  done
}

read_into paths < <(split "${INPUT_PATHS:-.}")
read_into policies < <(split "${INPUT_POLICY:-}")
read_into extra < <(split "${INPUT_ARGS:-}")
args=(check ${paths[@]+"${paths[@]}"})
for policy in ${policies[@]+"${policies[@]}"}; do
  args+=(-p "$policy")
done
args+=(${extra[@]+"${extra[@]}"})

outputs="${GITHUB_OUTPUT:-/dev/null}"

# Diff mode: what the pull request changes, against its base branch.
if [ "${INPUT_MODE:-check}" = "diff" ]; then
  base="${INPUT_BASE:-}"
  if [ -z "$base" ] && [ -n "${GITHUB_BASE_REF:-}" ]; then
    base="origin/$GITHUB_BASE_REF"
  fi
  if [ -z "$base" ]; then
    echo "retrylint: diff mode needs a base revision (the base input, or a pull request)" >&2
    exit 2
  fi
  args+=(--base "$base")
  if [ "${INPUT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    retrylint "${args[@]}" --format markdown --quiet >> "$GITHUB_STEP_SUMMARY"
  fi
  retrylint "${args[@]}" --format github --fail-on "${INPUT_FAIL_ON:-error}"
  code=$?
  echo "exit-code=$code" >> "$outputs"
  exit "$code"
fi

if [ "${INPUT_SARIF:-false}" = "true" ]; then
  sarif="${RUNNER_TEMP:-/tmp}/retrylint.sarif"
  retrylint "${args[@]}" --format sarif --output "$sarif" --fail-on never --quiet
  echo "sarif-file=$sarif" >> "$outputs"
fi
if [ "${INPUT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  retrylint "${args[@]}" --format markdown --fail-on never --quiet >> "$GITHUB_STEP_SUMMARY"
fi
retrylint "${args[@]}" --format "${INPUT_FORMAT:-github}" --fail-on "${INPUT_FAIL_ON:-error}"
code=$?
echo "exit-code=$code" >> "$outputs"
exit "$code"
