#!/usr/bin/env bash
# The one sanitizer build (sourced by scripts/sanitize.sh and scripts/fuzz.sh): clang, -O1,
# ASan + UBSan with every report fatal, libFuzzer coverage; the CTest suite and the libFuzzer targets
# both come from it. clang -O1 compiles this project 2-3x faster than gcc -O2 with ASan (test_cli.cpp:
# 15 s against 47 s), which keeps CI within its budget.
SAN_BUILD="${ROOFTOP_SAN_BUILD_DIR:-$ROOT/build-san}"
san_build() {  # san_build [TARGET ...]: configure if needed, then build those targets (default: all)
  if [ ! -f "$SAN_BUILD/CMakeCache.txt" ]; then
    echo "[san] configuring $SAN_BUILD (clang -O1, ASan + UBSan, libFuzzer, no CUDA)" >&2
    CC=clang CXX=clang++ cmake -S "$ROOT" -B "$SAN_BUILD" -DCMAKE_BUILD_TYPE=Release \
      -DROOFTOP_FUZZ=ON -DROOFTOP_CUDA=OFF >/dev/null
  else
    cmake "$SAN_BUILD" >/dev/null  # picks up new targets (a named target must exist before make sees it)
  fi
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  echo "[san] building ${*:-everything} with ${ROOFTOP_JOBS:-$(nproc)} jobs" >&2
  if ! cmake --build "$SAN_BUILD" -j "${ROOFTOP_JOBS:-$(nproc)}" "${targets[@]}" > "$SAN_BUILD/build.log" 2>&1; then
    grep -E "error|Error" "$SAN_BUILD/build.log" | head -40 >&2 || true
    echo "[san] build failed (log: $SAN_BUILD/build.log)" >&2
    return 1
  fi
}
