#!/usr/bin/env bash
# Wall time and peak memory of `retrylint check` on the largest corpus descriptions,
# with a policy that names every operation. Usage: benches/check-time.sh [CORPUS_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-${RETRYLINT_CORPUS:-../shared/corpus}}"
cargo build --release --quiet
bin=target/release/retrylint
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A policy with defaults plus, for JSON descriptions, one exact entry per operation.
policy_for() {
  python3 - "$1" "$2" <<'PY'
import json, sys
spec, out = sys.argv[1], sys.argv[2]
text = open(spec, encoding="utf-8").read()
lines = ["version: 1", "defaults:", "  maxAttempts: 3", "  deadline: 10s",
         "  retryOn: [503, timeout, connect-failure]",
         "  backoff: {base: 100ms, cap: 2s, jitter: full}",
         "  retryAfter: {honor: true, max: 5s}", "operations:"]
if text.lstrip().startswith("{"):
    paths = json.loads(text).get("paths", {})
    for path, item in paths.items():
        for method in item:
            if method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
                lines.append(f'  "{method.upper()} {path}": {{maxAttempts: 2}}')
open(out, "w").write("\n".join(lines) + "\n")
PY
}

printf '%-60s %10s %12s\n' description "median s" "peak MiB"
for spec in github/api.github.com.json stripe/spec3.yaml box/openapi.json \
            digitalocean/specification/DigitalOcean-public.v2.yaml; do
  path="$corpus/$spec"
  policy_for "$path" "$work/policy.yaml"
  times=()
  peak=0
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f "%e %M" -o "$work/time" "$bin" check "$path" -p "$work/policy.yaml" \
      >/dev/null 2>&1 || true
    read -r secs kb < <(tail -n 1 "$work/time")
    times+=("$secs")
    [ "$kb" -gt "$peak" ] && peak=$kb
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  printf '%-60s %10s %12s\n' "$spec" "$median" "$((peak / 1024))"
done
