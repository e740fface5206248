#!/usr/bin/env bash
# Packages a built retrylint for a release: the binary, the licences, the README, shell
# completions and manual pages, in `retrylint-VERSION-TARGET.tar.gz` (`.zip` for Windows)
# with its SHA-256 beside it.
#
#   scripts/package.sh BINARY VERSION TARGET OUT_DIR
#
# The binary must run on the machine that packages it (the completions and manual pages
# are its own output).
set -euo pipefail

binary="$1" version="$2" target="$3" out="$4"
root="$(cd "$(dirname "$0")/.." && pwd)"
name="retrylint-$version-$target"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/completions" "$stage/$name/man" "$out"
out="$(cd "$out" && pwd)"

exe="retrylint"
case "$target" in *windows*) exe="retrylint.exe" ;; esac
cp "$binary" "$stage/$name/$exe"
cp "$root/README.md" "$root/LICENSE-MIT" "$root/LICENSE-APACHE" "$stage/$name/"
for shell in bash zsh fish elvish powershell; do
  "$binary" completions "$shell" > "$stage/$name/completions/retrylint.$shell"
done
"$binary" man --dir "$stage/$name/man"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi
}

cd "$stage"
case "$target" in
  *windows*)
    archive="$name.zip"
    if command -v 7z >/dev/null 2>&1; then 7z a -tzip -bd "$out/$archive" "$name" >/dev/null; else zip -qr "$out/$archive" "$name"; fi
    ;;
  *)
    archive="$name.tar.gz"
    tar -czf "$out/$archive" "$name"
    ;;
esac
cd "$out"
sha256 "$archive" > "$archive.sha256"
echo "$out/$archive"
