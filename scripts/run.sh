#!/usr/bin/env bash
# README command 1: set up (if needed) and run the main job. With no arguments: a full sizing,
# speed and cost report of smollm2-135m on h100-sxm. Arguments are passed to rooftop instead.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/setup.sh"
BUILD="${ROOFTOP_BUILD_DIR:-$ROOT/build}"
if [ $# -eq 0 ]; then set -- report --model smollm2-135m --hw h100-sxm; fi
exec "$BUILD/rooftop" "$@"
