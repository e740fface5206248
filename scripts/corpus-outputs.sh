#!/usr/bin/env bash
# Writes what a retrylint binary prints for the corpus and the bundled fixtures, in every
# output format, into one folder per run, so that two builds can be compared byte for byte:
#
#   scripts/corpus-outputs.sh target/release/retrylint /tmp/before
#   # … change the code, rebuild …
#   scripts/corpus-outputs.sh target/release/retrylint /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Needs RETRYLINT_CORPUS (the folder of real API descriptions); the fixtures come from the
# crate. Each output file records the exit code and stderr after stdout.
set -euo pipefail

bin=${1:?usage: corpus-outputs.sh BINARY OUT_DIR}
out=${2:?usage: corpus-outputs.sh BINARY OUT_DIR}
corpus=${RETRYLINT_CORPUS:?set RETRYLINT_CORPUS to the corpus folder}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
mkdir -p "$out"

# run NAME ARGS…: the binary's stdout, exit code and stderr, from the crate's folder.
run() {
  local name=$1
  shift
  local code=0
  (cd "$root" && "$bin" "$@") >"$out/$name" 2>"$out/$name.stderr" || code=$?
  printf '\n--- exit code %s\n' "$code" >>"$out/$name"
  cat "$out/$name.stderr" >>"$out/$name"
  rm "$out/$name.stderr"
}

descriptions=(
  github/api.github.com.json
  stripe/spec3.yaml
  stripe/spec3.json
  twilio/twilio_api_v2010.json
  box/openapi.json
  adyen/CheckoutService-v71.json
  asana/asana_oas.yaml
  digitalocean/specification/DigitalOcean-public.v2.yaml
  oai-examples/v3.0/petstore-expanded.yaml
  oai-examples/v3.1/webhook-example.yaml
)
policy=fixtures/shop/retry-policy.yaml
for d in "${descriptions[@]}"; do
  name=$(echo "$d" | tr '/' '_')
  for format in human concise json sarif github junit markdown; do
    run "$name.$format" check "$corpus/$d" --format "$format" --show-infos
    run "$name.policy.$format" check "$corpus/$d" -p "$root/$policy" --format "$format"
  done
  run "$name.report.md" report "$corpus/$d" -p "$root/$policy" --format markdown
  run "$name.report.html" report "$corpus/$d" -p "$root/$policy" --format html
done

# The bundled demos, with their policies and layers.
run shop.human check fixtures/shop/openapi.yaml -p fixtures/shop/retry-policy.yaml
run shop.json check fixtures/shop/openapi.yaml -p fixtures/shop/retry-policy.yaml --format json
run layers.human check fixtures/layers/payments/openapi.yaml -p fixtures/layers/payments/retry-policy.yaml -p fixtures/layers/payments/deploy --show-infos
run layers.sarif check fixtures/layers/payments/openapi.yaml -p fixtures/layers/payments/retry-policy.yaml -p fixtures/layers/payments/deploy --format sarif
run layers.plan plan fixtures/layers/payments/openapi.yaml -p fixtures/layers/payments/retry-policy.yaml -p fixtures/layers/payments/deploy --operation createPayment
run diff.markdown diff fixtures/diff/base/openapi.yaml fixtures/diff/head/openapi.yaml --format markdown
for dir in fixtures/rules/*/*/; do
  name=$(echo "${dir%/}" | tr '/' '_')
  args=(check "$dir/openapi.yaml" --show-infos)
  [ -f "$dir/retry-policy.yaml" ] && args+=(-p "$dir/retry-policy.yaml")
  [ -d "$dir/layers" ] && args+=(-p "$dir/layers")
  if [ -f "$dir/openapi.yaml" ]; then run "$name" "${args[@]}"; fi
done
for dir in fixtures/errors/*/; do
  name=errors_$(basename "$dir")
  for format in human json sarif; do
    run "$name.$format" check "${dir}openapi.yaml" --format "$format"
  done
done
echo "wrote $(find "$out" -type f | wc -l) outputs to $out"
