#!/usr/bin/env bash
# README command 2: set up (if needed) and run every test:
#   1. the CTest suite on the release build (arguments are passed to this ctest);
#   2. the same suite built with ASan + UBSan (scripts/sanitize.sh; the browser test left out);
#   3. each fuzz target for $ROOFTOP_FUZZ_SECONDS (default 30; CI time: longer sessions are `scripts/fuzz.sh 600`) and the regression corpus (scripts/fuzz.sh).
# ROOFTOP_SANITIZE=0 or ROOFTOP_FUZZ_SECONDS=0 skip step 2 or 3 (a quick local run).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/setup.sh"
BUILD="${ROOFTOP_BUILD_DIR:-$ROOT/build}"
status=0
step() { echo "[test] $*" >&2; }

step "1/3 release build: ctest"
(cd "$BUILD" && ctest --output-on-failure -j "${ROOFTOP_JOBS:-$(nproc)}" "$@") || status=1

if [ "${ROOFTOP_SANITIZE:-1}" != 0 ]; then
  step "2/3 ASan + UBSan build: ctest (no browser test)"
  "$ROOT/scripts/sanitize.sh" || status=1
fi

if [ "${ROOFTOP_FUZZ_SECONDS:-30}" != 0 ]; then
  step "3/3 fuzzing: ${ROOFTOP_FUZZ_SECONDS:-30} s per target, then the regression corpus"
  "$ROOT/scripts/fuzz.sh" "${ROOFTOP_FUZZ_SECONDS:-30}" || status=1
fi

if [ $status -ne 0 ]; then step "FAILED (see above)"; else step "all passed"; fi
exit $status
