#!/usr/bin/env bash
# The whole CTest suite (but the slow browser test, and the OpenAI-client overload test of rooftop serve, whose
# timing and memory bounds are for the release build; the server's own paths run here in test_engine's [serve]
# test) in the sanitizer build: ASan + UBSan, every report fatal (-fno-sanitize-recover=all), leaks reported. Usage: scripts/sanitize.sh [ctest args...]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/scripts/san-build.sh"
"$ROOT/scripts/setup.sh"
san_build
export ASAN_OPTIONS="detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$SAN_BUILD"
exec ctest --output-on-failure -j "${ROOFTOP_JOBS:-$(nproc)}" -LE "browser|serve" "$@"
