#!/usr/bin/env bash
# README command 2: set up (if needed) and run the whole test suite through CTest.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/setup.sh"
BUILD="${ROOFTOP_BUILD_DIR:-$ROOT/build}"
cd "$BUILD"
exec ctest --output-on-failure -j "${ROOFTOP_JOBS:-$(nproc)}" "$@"
