#!/usr/bin/env python3
"""Issue 14's accuracy table: `rooftop run`'s printed prediction against its own measurement, on GGUF files the
project writes with `rooftop synth` (random weights, llama shapes) plus any files named with --file.

For each file and prompt length it runs
    rooftop run --gguf F --prompt-ids <n ids> -n STEPS --ignore-eos --format json [--refresh]
REPS times, takes the median measured TTFT and TPOT, and compares them with the prediction (the stored calibration's,
and with --refresh also the one from figures re-measured right after the run). Error = predicted / measured - 1.
It prints one row per point and the median / worst |error| per prompt length, and writes every run to --out (JSON).

Run `rooftop calibrate` first. Example (about 15 minutes on 2 cores):
    scripts/accuracy-sweep.py --shapes smollm2-360m,qwen2.5-0.5b --formats q4_0,q8_0,q4_k_m,f16 --prompts 16,128,512
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, fatal=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        msg = f"failed ({p.returncode}): {' '.join(cmd[:4])} ...: {p.stderr.strip()}"
        if fatal:
            sys.exit(msg)
        print(msg, file=sys.stderr, flush=True)
        return None
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rooftop", default=os.path.join(ROOT, "build", "rooftop"))
    ap.add_argument("--shapes", default="", help="model cards to synthesize, comma-separated")
    ap.add_argument("--formats", default="q4_0,q8_0,q4_k_m,f16", help="formats to synthesize, comma-separated")
    ap.add_argument("--file", action="append", default=[], help="an existing GGUF file to add (repeatable)")
    ap.add_argument("--prompts", default="16,128,512", help="prompt lengths in tokens, comma-separated")
    ap.add_argument("--steps", type=int, default=16, help="decode steps per run")
    ap.add_argument("--reps", type=int, default=1, help="runs per point; the median measured value is used")
    ap.add_argument("--refresh", action="store_true", help="also predict from figures re-measured after each run")
    ap.add_argument("--dir", default="/tmp/rooftop-accuracy", help="where the synthesized files go")
    ap.add_argument("--out", default="/tmp/rooftop-accuracy/runs.json")
    a = ap.parse_args()

    os.makedirs(a.dir, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    prompts = [int(x) for x in a.prompts.split(",") if x.strip()]
    files = list(a.file)
    for shape in filter(None, a.shapes.split(",")):
        for fmt in filter(None, a.formats.split(",")):
            path = os.path.join(a.dir, f"{shape}-{fmt}.gguf")
            if not os.path.exists(path):
                run([a.rooftop, "synth", "--model", shape, "--format", fmt, "-o", path])
            files.append(path)

    # Token ids 100..: ordinary vocabulary entries of every shipped tokenizer (none is a stop token).
    rows, runs = [], []
    for path in files:
        for n in prompts:
            ids = ",".join(str(100 + (i * 37) % 20000) for i in range(n))
            got = []
            for _ in range(a.reps):
                cmd = [a.rooftop, "run", "--gguf", path, "--prompt-ids", ids, "-n", str(a.steps), "--ignore-eos",
                       "--format", "json"] + (["--refresh"] if a.refresh else [])
                out = run(cmd, fatal=False)  # a failed run is reported and skipped; the sweep goes on
                if out is None:
                    continue
                j = json.loads(out)
                if j.get("refresh_note"):
                    print(f"{os.path.basename(path)} {n}: refresh: {j['refresh_note']}", file=sys.stderr, flush=True)
                got.append(j)
                runs.append({"file": path, "prompt": n, "run": j})
            if not got or not all(j["ttft_s"] > 0 and j["tpot_s"] > 0 for j in got):
                continue
            ttft = statistics.median(j["ttft_s"] for j in got)
            tpot = statistics.median(j["tpot_s"] for j in got)
            row = {"file": os.path.basename(path), "prompt": n, "ttft_s": ttft, "tpot_s": tpot}
            for key in ("predicted", "predicted_refreshed"):
                preds = [j[key] for j in got if key in j]
                if preds:
                    row[key] = {"ttft": statistics.median(p["ttft_s"] for p in preds) / ttft - 1,
                                "tpot": statistics.median(p["tpot_s"] for p in preds) / tpot - 1}
            peak = [j["peak_resident_bytes"] for j in got if "peak_resident_bytes" in j]
            if peak and "predicted" in got[0]:
                row["memory"] = got[0]["predicted"]["memory_bytes"] / statistics.median(peak) - 1
            rows.append(row)
            p = row.get("predicted", {})
            r = row.get("predicted_refreshed", {})
            refreshed = lambda key: f" (refreshed {r[key]:+7.1%})" if key in r else ""  # only with --refresh
            age = got[0].get("calibration_age_s")
            print(f"{row['file']:32s} {n:5d}  TTFT {ttft*1e3:9.1f} ms {p.get('ttft', float('nan')):+7.1%}"
                  f"{refreshed('ttft')}  TPOT {tpot*1e3:7.2f} ms {p.get('tpot', float('nan')):+7.1%}{refreshed('tpot')}"
                  f"  memory {row.get('memory', float('nan')):+6.1%}"
                  + (f"  (calibration {age / 60:.0f} min old)" if age is not None else ""), flush=True)

    with open(a.out, "w") as f:
        json.dump({"rows": rows, "runs": runs}, f)

    def summary(label, sel):
        for key in ("predicted", "predicted_refreshed"):
            for metric in ("ttft", "tpot"):
                errs = [abs(r[key][metric]) for r in sel if key in r]
                if errs:
                    signed = statistics.median(r[key][metric] for r in sel if key in r)
                    print(f"{label:14s} {key:20s} {metric}: median {statistics.median(errs):6.1%}"
                          f"  worst {max(errs):6.1%}  signed median {signed:+6.1%}  ({len(errs)} points)")
        mem = [abs(r["memory"]) for r in sel if "memory" in r]
        if mem:
            print(f"{label:14s} memory: median {statistics.median(mem):6.1%} worst {max(mem):6.1%}")

    print()
    summary("all", rows)
    for n in sorted({r["prompt"] for r in rows}):
        summary(f"prompt {n}", [r for r in rows if r["prompt"] == n])


if __name__ == "__main__":
    main()
