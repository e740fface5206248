#!/usr/bin/env bash
# Posts the Markdown summary as the pull request's retrylint comment, or updates the one
# posted before: the comment whose first line is the marker `<!-- retrylint-comment -->`
# (added here when the Markdown does not start with it), so a pull request keeps one
# retrylint comment however often it is pushed to.
#
#   comment.sh MARKDOWN_FILE
#
# Reads: PULL_REQUEST_NUMBER (github.event.pull_request.number; empty outside a pull
# request: nothing is posted), INPUT_GITHUB_TOKEN (needs `pull-requests: write`),
# GITHUB_API_URL, GITHUB_REPOSITORY, RUNNER_TEMP. Needs curl and jq.
#
# A comment that cannot be posted (a token without the permission, as on a pull request
# from a fork) is a warning: the check's result stands.
set -uo pipefail

# shellcheck source=action/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

marker='<!-- retrylint-comment -->'
# GitHub refuses a comment longer than 65,536 characters.
limit=65000
markdown="$1"
number="${PULL_REQUEST_NUMBER:-}"
repository="${GITHUB_REPOSITORY:-}"
api="${GITHUB_API_URL:-https://api.github.com}"
temp="${RUNNER_TEMP:-/tmp}"

warn() {
  echo "::warning title=retrylint comment::$(workflow_escape "$1")"
  exit 0
}

if [ -z "$number" ]; then
  echo "retrylint: not a pull request (no pull-request number in the event): no comment posted"
  exit 0
fi
if ! [[ "$number" =~ ^[0-9]+$ ]]; then warn "the pull-request number '$number' is not a number: no comment posted"; fi
if ! [[ "$repository" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then warn "GITHUB_REPOSITORY '$repository' is not OWNER/NAME: no comment posted"; fi
if [ -z "${INPUT_GITHUB_TOKEN:-}" ]; then warn "no github-token: no comment posted"; fi
for tool in curl jq; do
  if ! command -v "$tool" >/dev/null 2>&1; then warn "the comment needs $tool, which is not on PATH: no comment posted"; fi
done

# The body: the marker line first (once), the Markdown cut to what GitHub takes.
work="$(mktemp -d "$temp/retrylint-comment.XXXXXX")"
trap 'rm -rf "$work"' EXIT
body="$work/body.md"
if [ "$(head -n 1 "$markdown")" != "$marker" ]; then echo "$marker" > "$body"; fi
cat "$markdown" >> "$body"
if [ "$(wc -c < "$body")" -gt "$limit" ]; then
  head -c "$limit" "$body" > "$work/cut.md"
  printf '\n\n… (cut to fit a comment: the whole summary is on the job page)\n' >> "$work/cut.md"
  mv "$work/cut.md" "$body"
fi
jq --raw-input --slurp '{body: .}' < "$body" > "$work/payload.json"

# The token goes to curl in a header file, never on its command line.
headers="$work/headers"
(
  umask 077
  printf 'Authorization: Bearer %s\nAccept: application/vnd.github+json\nX-GitHub-Api-Version: 2022-11-28\n' \
    "$INPUT_GITHUB_TOKEN" > "$headers"
)
call() {
  curl --silent --show-error --fail --location --retry 2 --header "@$headers" "$@"
}

comments="$api/repos/$repository/issues/$number/comments"
existing=""
page=1
while [ "$page" -le 20 ]; do
  if ! call --output "$work/page.json" "$comments?per_page=100&page=$page"; then
    warn "the pull request's comments could not be listed ($comments): no comment posted"
  fi
  existing="$(jq -r --arg marker "$marker" \
    '[.[] | select(((.body // "") | split("\n")[0] | rtrimstr("\r")) == $marker) | .id][0] // empty' "$work/page.json")"
  if ! [[ "$existing" =~ ^[0-9]*$ ]]; then warn "the pull request's comments are not as GitHub lists them: no comment posted"; fi
  if [ -n "$existing" ] || [ "$(jq length "$work/page.json")" -lt 100 ]; then break; fi
  page=$((page + 1))
done

if [ -n "$existing" ]; then
  if call --request PATCH --data-binary "@$work/payload.json" --output /dev/null "$api/repos/$repository/issues/comments/$existing"; then
    echo "retrylint: updated the pull request's comment $existing"
  else
    warn "the comment $existing could not be updated (the job needs pull-requests: write)"
  fi
elif call --request POST --data-binary "@$work/payload.json" --output /dev/null "$comments"; then
  echo "retrylint: commented on pull request #$number"
else
  warn "the pull request could not be commented on (the job needs pull-requests: write)"
fi
