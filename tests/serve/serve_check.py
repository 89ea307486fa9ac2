#!/usr/bin/env python3
"""rooftop serve against the official OpenAI Python client and under overload.

Usage: serve_check.py ROOFTOP_BINARY [--load-seconds S]

1. The official `openai` client (installed by scripts/setup.sh into <cache>/pyenv) completes a streamed chat and
   a completion against `rooftop serve`, and the completion again cut by a stop string.
2. Overload: the server's throughput is measured with 8 concurrent requests, then requests arrive (Poisson) at 4x
   that rate for S seconds. Every request must be answered 200 or 429 within its time limit, the server must
   stay up, and its resident memory after the load must not exceed what it was after a warm-up load by more than
   5% + 16 MB (no growth: the KV cache is allocated at start).
3. SIGTERM stops it with exit code 0 within 10 s.
Exits 1 with one line on the first failure.
"""
import glob
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request


def fail(msg):
    print("serve_check: FAILED: " + msg, file=sys.stderr)
    sys.exit(1)


def import_openai():
    try:
        import openai  # noqa: F401
    except ImportError:
        cache = os.environ.get("ROOFTOP_CACHE_DIR") or os.path.join(
            os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "rooftop")
        sys.path[:0] = glob.glob(os.path.join(cache, "pyenv", "lib", "python*", "site-packages"))
    try:
        import openai
        return openai
    except ImportError:
        fail("the openai package is missing; scripts/setup.sh installs it into <cache>/pyenv")


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def post(port, body, timeout):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        e.read()
        return e.code


def load(port, rate, seconds, seed, timeout):
    """Poisson arrivals at `rate` req/s for `seconds`; returns the status of each (0: no answer in time)."""
    rng = random.Random(seed)
    statuses, threads, lock = [], [], threading.Lock()

    def one():
        try:
            s = post(port, {"prompt": "Tell me about the sea.", "max_tokens": 32, "temperature": 0}, timeout)
        except Exception:  # noqa: BLE001 - a timeout or a reset counts as no answer
            s = 0
        with lock:
            statuses.append(s)

    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        t = threading.Thread(target=one)
        t.start()
        threads.append(t)
        time.sleep(rng.expovariate(rate))
    for t in threads:
        t.join(timeout + 5)
    return statuses


def main():
    if len(sys.argv) < 2:
        fail("usage: serve_check.py ROOFTOP_BINARY [--load-seconds S]")
    binary = sys.argv[1]
    seconds = float(sys.argv[sys.argv.index("--load-seconds") + 1]) if "--load-seconds" in sys.argv else 10.0
    openai = import_openai()
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--max-seqs", "8", "--max-in-flight", "16",
                             "--context", "512"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not m:
        proc.kill()
        fail("no listening line from rooftop serve: " + line.strip())
    port = int(m.group(1))
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none")
        text, finish = "", None
        for chunk in client.chat.completions.create(model="rooftop", stream=True, max_tokens=16, temperature=0,
                                                    messages=[{"role": "user", "content": "What is the capital of France?"}]):
            if chunk.choices and chunk.choices[0].delta.content:
                text += chunk.choices[0].delta.content
            if chunk.choices and chunk.choices[0].finish_reason:
                finish = chunk.choices[0].finish_reason
        if not text or finish not in ("stop", "length"):
            fail(f"streamed chat: text {text!r}, finish {finish!r}")
        c = client.completions.create(model="rooftop", prompt="The capital of France is", max_tokens=8, temperature=0)
        if not c.choices[0].text or c.usage.completion_tokens < 1:
            fail(f"completion: {c}")
        # A stop string cuts the same completion before its first occurrence (if the text has a second word).
        words = c.choices[0].text.split()
        if len(words) >= 2:
            stop = words[1]
            cut = client.completions.create(model="rooftop", prompt="The capital of France is", max_tokens=8, temperature=0,
                                            stop=[stop])
            want = c.choices[0].text[:c.choices[0].text.find(stop)]
            if cut.choices[0].text != want or cut.choices[0].finish_reason != "stop":
                fail(f"stop {stop!r}: got {cut.choices[0].text!r} ({cut.choices[0].finish_reason}), expected {want!r} (stop)")
        print(f"openai {openai.__version__}: streamed chat {text!r} ({finish}); completion {c.choices[0].text!r}")

        # Throughput: 8 concurrent requests of 32 tokens.
        t0 = time.monotonic()
        ok = []
        threads = [threading.Thread(target=lambda: ok.append(post(port, {"prompt": "Tell me about the sea.", "max_tokens": 32,
                                                                        "temperature": 0}, 60))) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        capacity = 8 / (time.monotonic() - t0)
        if ok != [200] * 8:
            fail(f"8 concurrent requests: statuses {ok}")
        warm = load(port, 2 * capacity, min(3.0, seconds), 1, 60)
        rss0 = rss_bytes(proc.pid)
        statuses = load(port, 4 * capacity, seconds, 2, 60)
        rss1 = rss_bytes(proc.pid)
        bad = [s for s in statuses if s not in (200, 429)]
        counts = {s: statuses.count(s) for s in set(statuses)}
        print(f"capacity {capacity:.2f} req/s; 4x load for {seconds:.0f} s: {len(statuses)} requests, statuses {counts}; "
              f"warm-up {len(warm)}; RSS {rss0 / 1e6:.1f} -> {rss1 / 1e6:.1f} MB")
        if bad:
            fail(f"{len(bad)} requests not answered 200 or 429: {counts}")
        if proc.poll() is not None:
            fail(f"the server exited during the load (code {proc.returncode})")
        if rss1 > rss0 * 1.05 + 16e6:
            fail(f"resident memory grew from {rss0 / 1e6:.1f} to {rss1 / 1e6:.1f} MB under load")
        if counts.get(429, 0) == 0:
            fail("a 4x overload never filled the queue (no 429): the bound was not exercised")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail("SIGTERM did not stop the server within 10 s")
    if code != 0:
        fail(f"the server exited {code} on SIGTERM")
    print("serve_check: passed")


if __name__ == "__main__":
    main()
