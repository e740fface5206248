#!/usr/bin/env bash
# Cuts a release: checks that the repository is ready for the tag that Cargo.toml's
# version names, then creates the annotated tag `vX.Y.Z` and pushes it. The tag starts the
# release workflow (.github/workflows/release.yml), which builds, packages and publishes
# the binaries the GitHub Action installs.
#
#   scripts/release.sh [--dry-run] [--remote NAME]   check, then tag and push (origin)
#   scripts/release.sh verify TAG                    TAG is Cargo.toml's version
#
# Refuses, saying why, unless:
# - Cargo.toml's version is X.Y.Z (or X.Y.Z-PRE) and Cargo.lock records the same;
# - the tag exists neither here nor at the remote;
# - the work tree is clean, on the release branch (RELEASE_BRANCH, default main), and
#   that branch's commit is the remote's (the tag names a commit everyone has);
# - CHANGELOG.md, when there is one, has a heading for the version;
# - README.md, action.yml and the manual's pages (docs/src/*.md) pin no retrylint tag that
#   does not exist (the one being made excepted): `retrylint@vX`, `--tag vX`, `rev: vX`,
#   `releases/download/vX`, `version=vX`.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "release: $1" >&2
  exit 1
}

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  fail "Cargo.toml's version '$version' is not X.Y.Z"
fi
tag="v$version"

if [ "${1:-}" = verify ]; then
  if [ "${2:-}" != "$tag" ]; then fail "the tag '${2:-}' is not Cargo.toml's version ($tag)"; fi
  echo "release: $tag is Cargo.toml's version"
  exit 0
fi

dry_run=false
remote=origin
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) dry_run=true ;;
    --remote)
      remote="${2:?--remote needs a name}"
      shift
      ;;
    *) fail "unknown argument '$1' (usage: scripts/release.sh [--dry-run] [--remote NAME] | verify TAG)" ;;
  esac
  shift
done
branch="${RELEASE_BRANCH:-main}"

locked="$(awk '/^name = "retrylint"$/ { getline; print; exit }' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')"
if [ "$locked" != "$version" ]; then
  fail "Cargo.lock records retrylint $locked, Cargo.toml $version: run cargo update -p retrylint and commit"
fi

if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then fail "the tag $tag exists already"; fi
if git ls-remote --exit-code --tags "$remote" "refs/tags/$tag" >/dev/null 2>&1; then
  fail "the tag $tag exists at $remote already"
fi

if [ -n "$(git status --porcelain)" ]; then fail "the work tree has changes: commit them first"; fi
current="$(git symbolic-ref --quiet --short HEAD || true)"
if [ "$current" != "$branch" ]; then fail "on '${current:-a detached HEAD}', not the release branch $branch"; fi
if ! git fetch --quiet "$remote" "$branch"; then fail "cannot fetch $branch from $remote"; fi
if [ "$(git rev-parse HEAD)" != "$(git rev-parse FETCH_HEAD)" ]; then
  fail "$branch is not $remote's $branch: push (or pull) first, so that the tag names a published commit"
fi

if [ -f CHANGELOG.md ] && ! grep -Eq "^#+ .*\\b(v?)$version\\b" CHANGELOG.md; then
  fail "CHANGELOG.md has no heading for $version"
fi

# Every file that holds install instructions with a pin.
pinning=(README.md action.yml)
for page in docs/src/*.md; do
  if [ -f "$page" ]; then pinning+=("$page"); fi
done
missing=""
while IFS=: read -r file pinned; do
  if [ -n "$pinned" ] && [ "$pinned" != "$tag" ] && ! git rev-parse -q --verify "refs/tags/$pinned" >/dev/null; then
    missing="$missing $file:$pinned"
  fi
done < <(grep -oHE "(retrylint@|--tag |rev: |releases/download/|version=)v[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.-]*" "${pinning[@]}" \
  | sed -E 's/:.*(v[0-9])/:\1/' | sort -u)
if [ -n "$missing" ]; then fail "pins of tags that do not exist:$missing"; fi

commit="$(git rev-parse HEAD)"
if $dry_run; then
  echo "release: ready; would tag $commit as $tag and push it to $remote"
  exit 0
fi
git tag -a "$tag" -m "retrylint $tag" "$commit"
git push --quiet "$remote" "refs/tags/$tag"
echo "release: tagged $commit as $tag and pushed it to $remote; the release workflow builds and publishes it"
