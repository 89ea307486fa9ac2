#!/usr/bin/env bash
# The whole CTest suite (but the slow browser test) built with ASan + UBSan, every report fatal
# (-fno-sanitize-recover=all). Usage: scripts/sanitize.sh [ctest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${ROOFTOP_SANITIZE_BUILD_DIR:-$ROOT/build-asan}"
JOBS="${ROOFTOP_JOBS:-$(nproc)}"
say() { echo "[sanitize] $*" >&2; }

"$ROOT/scripts/setup.sh"
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  say "configuring $BUILD (ASan + UBSan, no CUDA)"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DROOFTOP_SANITIZE=ON -DROOFTOP_CUDA=OFF >/dev/null
fi
say "building with $JOBS jobs"
cmake --build "$BUILD" -j "$JOBS" 2>&1 | grep -E "error|Error" || true
test -x "$BUILD/rooftop" || { say "build failed"; cmake --build "$BUILD" -j 1; exit 1; }
# Leak checking stays on; a report of any kind ends the test with a failure.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$BUILD"
exec ctest --output-on-failure -j "$JOBS" -LE browser "$@"
