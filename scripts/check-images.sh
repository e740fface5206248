#!/usr/bin/env bash
# Builds both container images of the Dockerfile and runs them as docs/src/ci.md shows: the
# minimal one on the demo (`docker run … check`), the CI one as a GitLab job runs its
# image (`sh -c` with the job's script, in the checkout, as a user that does not own it),
# with `check --base` reading a revision with git.
#
#   scripts/check-images.sh
#
# Needs a container engine that answers (`docker`) and the base images (pulled from
# Docker Hub). Run from a git checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== docker build -t retrylint ."
docker build -t retrylint .
echo "== docker build --target ci -t retrylint-ci ."
docker build --target ci -t retrylint-ci .

echo "== the minimal image checks the demo: exit 1, its errors"
status=0
docker run --rm -v "$PWD:/work" retrylint check fixtures/shop/openapi.yaml || status=$?
test "$status" -eq 1

echo "== the CI image as a job image"
docker run --rm -v "$PWD:/builds/project" -w /builds/project retrylint-ci sh -c '
  set -e
  test "$(id -u)" != 0
  retrylint --version
  git --version
  retrylint check fixtures/contract/openapi.yaml --base HEAD --format markdown
  retrylint check fixtures/shop/openapi.yaml --format gitlab -o /tmp/gl-code-quality-report.json --fail-on never
  test -s /tmp/gl-code-quality-report.json
'
echo "== both images work"
