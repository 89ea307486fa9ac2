#!/usr/bin/env python3
"""Side-by-side speed of rooftop's engine and llama.cpp on the same GGUF files, same cores, one run.

For each file: prefill of a P-token prompt (pp) and T decode steps (tg), each engine R times, alternating
(rooftop, llama.cpp, rooftop, ...) so both see the same machine phases. Reports medians, the spread
(min..max) and the ratio rooftop / llama.cpp of the medians (> 1: rooftop faster).

llama.cpp is whatever is installed: the `llama_cpp` Python module (pip install llama-cpp-python), timed
around Llama.eval() (the binding adds about 0.1 ms per call: decode figures include it), or else
`llama-bench` on PATH. This script never fetches or builds llama.cpp; without one it prints rooftop alone.

  scripts/bench-vs-llamacpp.py FILE.gguf [FILE.gguf ...] [--pp 128] [--tg 64] [--reps 3] [--threads 2]
  (python3 -m venv /tmp/lcp && /tmp/lcp/bin/pip install llama-cpp-python; then run this with /tmp/lcp/bin/python)
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOFTOP = os.environ.get("ROOFTOP", os.path.join(ROOT, "build", "rooftop"))
# Prompt text: the project's perplexity paragraph, repeated until it is long enough, cut to P tokens by the
# engine's own tokenizer (both engines then run the same ids: llama.cpp gets rooftop's ids).
PARAGRAPH = open(os.path.join(ROOT, "tests", "data", "perplexity_paragraph.txt")).read()


def rooftop_ids(path, n):
    text = PARAGRAPH
    while True:
        out = subprocess.run([ROOFTOP, "tokenize", "--gguf", path, text, "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        ids = [t["id"] for t in json.loads(out)["tokens"]]
        if len(ids) >= n:
            return ids[:n]
        text += " " + PARAGRAPH


def rooftop_once(path, pp, tg, threads):
    cmd = [ROOFTOP, "run", "--gguf", path, "--prompt-ids", ",".join(map(str, pp)), "-n", str(tg + 1),
           "--ignore-eos", "--threads", str(threads), "--format", "json"]
    j = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return len(pp) / j["prefill_s"], 1.0 / j["tpot_s"]


class LlamaCppPython:
    name = "llama-cpp-python"

    def __init__(self, path, threads, ctx):
        import llama_cpp
        self.version = llama_cpp.__version__
        self.llm = llama_cpp.Llama(model_path=path, n_ctx=ctx, n_batch=ctx, n_ubatch=512, n_threads=threads,
                                   n_threads_batch=threads, verbose=False)

    def once(self, pp, tg):
        self.llm.reset()
        t0 = time.perf_counter()
        self.llm.eval(pp)
        t1 = time.perf_counter()
        tok = pp[-1]
        steps = []
        for _ in range(tg):
            a = time.perf_counter()
            self.llm.eval([tok])
            steps.append(time.perf_counter() - a)
        return len(pp) / (t1 - t0), len(steps) / sum(steps)


def stats(xs):
    return statistics.median(xs), min(xs), max(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--pp", type=int, default=128)
    ap.add_argument("--tg", type=int, default=64)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", help="also write the rows to this file")
    a = ap.parse_args()
    have_py = True
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        have_py = False
    if not have_py:
        print("llama.cpp: the llama_cpp module is not installed; rooftop alone"
              + (" (llama-bench found but not used: pip install llama-cpp-python)" if shutil.which("llama-bench") else ""),
              file=sys.stderr)
    rows = []
    print(f"{'file':<34} {'test':<6} {'rooftop tok/s':>22} {'llama.cpp tok/s':>22} {'ratio':>6}")
    for path in a.files:
        ids = rooftop_ids(path, a.pp)
        ref = LlamaCppPython(path, a.threads, a.pp + a.tg + 8) if have_py else None
        ours, theirs = [], []
        for _ in range(a.reps):
            ours.append(rooftop_once(path, ids, a.tg, a.threads))
            if ref:
                theirs.append(ref.once(ids, a.tg))
        for k, test in ((0, f"pp{a.pp}"), (1, f"tg{a.tg}")):
            o = stats([x[k] for x in ours])
            row = {"file": os.path.basename(path), "test": test, "rooftop": o}
            line = f"{os.path.basename(path)[:34]:<34} {test:<6} {o[0]:>9.1f} ({o[1]:.1f}-{o[2]:.1f})"
            if ref:
                t = stats([x[k] for x in theirs])
                row.update({"llama_cpp": t, "ratio": o[0] / t[0], "llama_cpp_version": ref.version})
                line += f" {t[0]:>9.1f} ({t[1]:.1f}-{t[2]:.1f}) {o[0] / t[0]:>6.2f}"
            print(line, flush=True)
            rows.append(row)
        del ref
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    if ratios:
        gm = statistics.geometric_mean(ratios)
        print(f"geometric mean of the ratios {gm:.2f} over {len(ratios)} cells; lowest {min(ratios):.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
