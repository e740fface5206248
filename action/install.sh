#!/usr/bin/env bash
# Installs retrylint for the GitHub Action, from what exists:
#
# 1. a published release of the asked-for tag (`version`, else the action's ref when that
#    is a version tag): the binary for this runner's OS and architecture, its checksum
#    verified;
# 2. else the action's own checkout (`version` empty or `source`, or the tag the action was
#    called at), built with cargo once and cached: the binary is kept in a folder whose
#    cache key names the checkout's commit (or its files' hash), the hash of Cargo.lock and
#    the runner's OS and architecture, so a job that restores that folder runs no cargo;
# 3. a branch, a commit or another tag as `version`: `cargo install` of that revision.
#
#   install.sh release   step 1 alone; sets the step outputs `installed`, and for step 2
#                        `cache-key` and `cache-path` (what action.yml restores and saves)
#   install.sh build     steps 2 or 3: the cached binary when it is there, else cargo;
#                        sets `built=true` when it compiled
#   install.sh           both, in turn
#
# When nothing works, one `::error::` line says everything that was tried.
#
# Reads: RETRYLINT_VERSION (`version`), ACTION_REPOSITORY and ACTION_REF
# (github.action_repository, github.action_ref), GITHUB_ACTION_PATH, RUNNER_OS,
# RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT; RETRYLINT_DOWNLOAD_BASE replaces
# https://github.com (a mirror, or a folder for the tests).
set -euo pipefail

# shellcheck source=action/common.sh
. "$(cd "$(dirname "$0")" && pwd)/common.sh"

phase="${1:-all}"
case "$phase" in
  release | build | all) ;;
  *)
    echo "usage: install.sh [release|build]" >&2
    exit 2
    ;;
esac

# Inside a composite action the runner may leave github.action_repository and
# github.action_ref empty; the action's own folder (…/_actions/OWNER/REPO/REF) says the same.
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
if [ -z "${ACTION_REPOSITORY:-}" ] && [[ "$action_path" == */_actions/*/*/* ]]; then
  rest="${action_path#*/_actions/}"
  ACTION_REPOSITORY="$(echo "$rest" | cut -d/ -f1-2)"
  ACTION_REF="${ACTION_REF:-$(echo "$rest" | cut -d/ -f3)}"
fi
repository="${ACTION_REPOSITORY:-retrylint/retrylint}"
ref="${ACTION_REF:-}"
version="${RETRYLINT_VERSION:-}"
temp="${RUNNER_TEMP:-/tmp}"
install_dir="$temp/retrylint/bin"
cache_path="$temp/retrylint-cache"
outputs="${GITHUB_OUTPUT:-/dev/null}"
tried_file="$temp/retrylint/tried"
exe=retrylint
case "${RUNNER_OS:-}" in Windows) exe=retrylint.exe ;; esac
mkdir -p "$install_dir"

is_version_tag() { [[ "$1" =~ ^v[0-9]+(\.[0-9]+)*([-+].*)?$ ]]; }

# What the two phases do, from the inputs alone (each phase works it out the same way):
# the release tag to look for, if any, and what to build when there is none.
release_tag=""
build="checkout"
case "$version" in
  "")
    if is_version_tag "$ref"; then release_tag="$ref"; fi
    ;;
  source) ;;
  *)
    if is_version_tag "$version"; then
      release_tag="$version"
      # Another tag than the one the action was called at: its own source, not ours.
      if [ "$version" != "$ref" ]; then build="git"; fi
    else
      build="git"
    fi
    ;;
esac

# Notes what was tried and why it did not work, for the final error.
tried() {
  echo "retrylint: $1" >&2
  echo "$1" >> "$tried_file"
}

# Ends the install with one error line listing every attempt.
give_up() {
  tried "$1"
  local summary
  summary="$(awk '{ printf "%s(%d) %s", (NR > 1 ? "; " : ""), NR, $0 }' "$tried_file")"
  echo "::error title=retrylint not installed::$(workflow_escape "tried $summary")"
  exit 1
}

# The release target for an OS and architecture as the runner names them.
target_for() {
  case "$1/$2" in
    Linux/X64) echo x86_64-unknown-linux-musl ;;
    Linux/ARM64) echo aarch64-unknown-linux-musl ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) return 1 ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# Puts a folder holding the binary on the job's PATH and shows the version.
use_binary_in() {
  echo "$1" >> "${GITHUB_PATH:-/dev/null}"
  "$1/$exe" --version
}

# Downloads and checks the release archive; returns 1, saying why, when there is none.
from_release() {
  local target archive url expected actual error
  if ! target="$(target_for "${RUNNER_OS:-Linux}" "${RUNNER_ARCH:-X64}")"; then
    tried "the release $release_tag: no release binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?}"
    return 1
  fi
  case "$target" in
    *windows*) archive="retrylint-$release_tag-$target.zip" ;;
    *) archive="retrylint-$release_tag-$target.tar.gz" ;;
  esac
  url="${RETRYLINT_DOWNLOAD_BASE:-https://github.com}/$repository/releases/download/$release_tag/$archive"
  echo "retrylint: downloading $url"
  if ! error="$(curl --fail --silent --show-error --location --retry 3 -o "$temp/$archive" "$url" 2>&1)" \
    || ! error="$(curl --fail --silent --show-error --location --retry 3 -o "$temp/$archive.sha256" "$url.sha256" 2>&1)"; then
    tried "the release $release_tag: $url could not be downloaded (${error:-no answer})"
    return 1
  fi
  expected="$(cut -d' ' -f1 < "$temp/$archive.sha256")"
  actual="$(sha256_of "$temp/$archive")"
  if [ "$expected" != "$actual" ]; then
    # A tampered or broken download is never replaced by a build: it is an error.
    echo "::error title=retrylint not installed::$(workflow_escape "the checksum of $archive does not match ($actual, expected $expected)")"
    echo "retrylint: the checksum of $archive does not match ($actual, expected $expected)" >&2
    exit 1
  fi
  if ! case "$archive" in
    *.zip) unzip -o -j -q "$temp/$archive" '*/retrylint.exe' -d "$install_dir" ;;
    *) tar -xzf "$temp/$archive" -C "$install_dir" --strip-components=1 "retrylint-$release_tag-$target/retrylint" ;;
  esac; then
    tried "the release $release_tag: $archive could not be unpacked"
    return 1
  fi
}

# The revision of the action's checkout: its commit when it is a clean git work tree of
# its own, the ref when that is a full commit, else a hash of the files the build reads
# (the runner unpacks actions without their .git).
checkout_revision() {
  local top
  top="$(git -C "$action_path" rev-parse --show-toplevel 2>/dev/null || true)"
  if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(cd "$action_path" && pwd -P)" ] \
    && [ -z "$(git -C "$action_path" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    git -C "$action_path" rev-parse HEAD
  elif [[ "$ref" =~ ^[0-9a-f]{40}$ ]]; then
    echo "$ref"
  else
    local list
    list="$temp/retrylint/files.sha256"
    : > "$list"
    (cd "$action_path" && find Cargo.toml Cargo.lock README.md src rules schema -type f 2>/dev/null | LC_ALL=C sort) \
      | while IFS= read -r file; do
        echo "$(sha256_of "$action_path/$file") $file" >> "$list"
      done
    echo "files-$(sha256_of "$list" | cut -c1-40)"
  fi
}

cache_key() {
  local lock
  lock="$(sha256_of "$action_path/Cargo.lock" | cut -c1-16)"
  echo "retrylint-${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}-$(checkout_revision)-$lock"
}

# Step 1: sets `installed`.
installed=false
release_phase() {
  : > "$tried_file"
  if [ -n "$release_tag" ] && from_release; then
    installed=true
    echo "installed=true" >> "$outputs"
    use_binary_in "$install_dir"
    return
  fi
  if [ -z "$release_tag" ]; then
    echo "retrylint: no release asked for (version '${version}', the action's ref '${ref}'): building"
  fi
  echo "installed=false" >> "$outputs"
  if [ "$build" = checkout ] && [ -f "$action_path/Cargo.lock" ]; then
    echo "cache-key=$(cache_key)" >> "$outputs"
    echo "cache-path=$cache_path" >> "$outputs"
  fi
}

# Steps 2 and 3.
build_phase() {
  touch "$tried_file"
  if [ "$build" = git ]; then
    from_git
    return
  fi
  if [ ! -f "$action_path/Cargo.toml" ] || [ ! -f "$action_path/Cargo.lock" ]; then
    give_up "building the action's checkout: $action_path holds no Cargo.toml and Cargo.lock"
  fi
  local key
  key="$(cache_key)"
  if [ -x "$cache_path/bin/$exe" ] && [ "$(cat "$cache_path/key" 2>/dev/null)" = "$key" ]; then
    echo "retrylint: using the binary built and cached for $key"
    use_binary_in "$cache_path/bin"
    return 0
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    give_up "building the action's checkout ($key): no binary cached for it, and cargo is not on PATH (install Rust, or use a released version)"
  fi
  echo "retrylint: building the action's checkout with cargo ($key; the next job restores it from the cache)"
  if ! cargo install --locked --force --root "$cache_path" --path "$action_path"; then
    give_up "building the action's checkout ($key) with cargo install: it failed (see above)"
  fi
  echo "$key" > "$cache_path/key"
  echo "built=true" >> "$outputs"
  use_binary_in "$cache_path/bin"
}

# Builds the asked-for revision of the repository with cargo. (An empty array is expanded
# with `+`: macOS's bash 3.2 calls "${how[@]}" of an empty array unbound under `set -u`.)
from_git() {
  local how=()
  if is_version_tag "$version"; then
    how=(--tag "$version")
  elif [[ "$version" =~ ^[0-9a-f]{7,40}$ ]]; then
    how=(--rev "$version")
  else
    how=(--branch "$version")
  fi
  local source="https://github.com/$repository"
  if ! command -v cargo >/dev/null 2>&1; then
    give_up "building $version of $source: cargo is not on PATH"
  fi
  echo "retrylint: building $version of $source with cargo install"
  if ! cargo install --locked --force --root "$(dirname "$install_dir")" --git "$source" ${how[@]+"${how[@]}"} retrylint; then
    give_up "building $version of $source with cargo install: it failed (see above)"
  fi
  use_binary_in "$install_dir"
}

case "$phase" in
  release) release_phase ;;
  build) build_phase ;;
  all)
    release_phase
    if [ "$installed" = false ]; then build_phase; fi
    ;;
esac
