#!/usr/bin/env bash
# Installs retrylint for the GitHub Action: the released binary for this runner's OS and
# architecture, its checksum verified; or, when there is no release for the version
# asked for (a branch, a commit), `cargo install` of that revision.
#
# Reads: RETRYLINT_VERSION (a tag such as v0.1.0; `source`: the action's own checkout;
# empty: the action's own ref),
# ACTION_REPOSITORY and ACTION_REF (github.action_repository, github.action_ref),
# RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH; RETRYLINT_DOWNLOAD_BASE replaces
# https://github.com (a mirror, or a folder for the tests).
set -euo pipefail

# Inside a composite action the runner may leave github.action_repository and
# github.action_ref empty; the action's own folder (…/_actions/OWNER/REPO/REF) and its
# Cargo.toml say the same.
action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
if [ -z "${ACTION_REPOSITORY:-}" ] && [[ "$action_path" == */_actions/*/*/* ]]; then
  rest="${action_path#*/_actions/}"
  ACTION_REPOSITORY="$(echo "$rest" | cut -d/ -f1-2)"
  ACTION_REF="${ACTION_REF:-$(echo "$rest" | cut -d/ -f3)}"
fi
repository="${ACTION_REPOSITORY:-retrylint/retrylint}"
version="${RETRYLINT_VERSION:-${ACTION_REF:-}}"
if [ -z "$version" ] && [ -f "$action_path/Cargo.toml" ]; then
  version="v$(sed -n 's/^version = "\(.*\)"$/\1/p' "$action_path/Cargo.toml" | head -n 1)"
fi
temp="${RUNNER_TEMP:-/tmp}"
install_dir="$temp/retrylint/bin"
mkdir -p "$install_dir"

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

# Downloads and checks the release archive; fails when there is none.
from_release() {
  local target archive url expected actual
  target="$(target_for "${RUNNER_OS:-Linux}" "${RUNNER_ARCH:-X64}")" || return 1
  case "$target" in
    *windows*) archive="retrylint-$version-$target.zip" ;;
    *) archive="retrylint-$version-$target.tar.gz" ;;
  esac
  url="${RETRYLINT_DOWNLOAD_BASE:-https://github.com}/$repository/releases/download/$version/$archive"
  echo "retrylint: downloading $url"
  curl --fail --silent --show-error --location --retry 3 -o "$temp/$archive" "$url" || return 1
  curl --fail --silent --show-error --location --retry 3 -o "$temp/$archive.sha256" "$url.sha256" || return 1
  expected="$(cut -d' ' -f1 < "$temp/$archive.sha256")"
  actual="$(sha256_of "$temp/$archive")"
  if [ "$expected" != "$actual" ]; then
    echo "retrylint: the checksum of $archive does not match ($actual, expected $expected)" >&2
    exit 1
  fi
  case "$archive" in
    *.zip) unzip -o -j -q "$temp/$archive" '*/retrylint.exe' -d "$install_dir" ;;
    *) tar -xzf "$temp/$archive" -C "$install_dir" --strip-components=1 "retrylint-$version-$target/retrylint" ;;
  esac
}

# Builds the asked-for revision with cargo. (An empty array is expanded with `+`: macOS's
# bash 3.2 calls "${how[@]}" of an empty array unbound under `set -u`.)
from_source() {
  local how=()
  case "$version" in
    v[0-9]*) how=(--tag "$version") ;;
    "") how=() ;;
    *)
      if [[ "$version" =~ ^[0-9a-f]{7,40}$ ]]; then how=(--rev "$version"); else how=(--branch "$version"); fi
      ;;
  esac
  echo "retrylint: building ${version:-the default branch} with cargo install"
  cargo install --locked --root "$(dirname "$install_dir")" --git "https://github.com/$repository" ${how[@]+"${how[@]}"} retrylint
}

case "$version" in
  source)
    echo "retrylint: building the action's own checkout with cargo install"
    cargo install --locked --root "$(dirname "$install_dir")" --path "$action_path"
    ;;
  v[0-9]*) from_release || from_source ;;
  *) from_source ;;
esac

echo "$install_dir" >> "${GITHUB_PATH:-/dev/null}"
"$install_dir/retrylint" --version
