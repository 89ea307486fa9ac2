#!/usr/bin/env python3
# Held-out check of `rooftop simulate` on GPUStack's vLLM burst runs (validate/heldout/vllm-gpustack-*.yaml, the
# baseline blocks): N requests sent at once (request rate inf), each simulated from a trace of N arrivals at 0 with
# the vllm runtime profile; median TTFT and TPOT and output tok/s against the page's figures.
# Usage (from the repository root): scripts/simulate-heldout.py [ROOFTOP_BINARY] [extra simulate options ...]
import glob, json, os, re, statistics, subprocess, sys, tempfile
import yaml
ROOF = sys.argv[1] if len(sys.argv) > 1 else 'build/rooftop'
extra = sys.argv[2:]
rows = []
for f in sorted(glob.glob('validate/heldout/vllm-gpustack-*.yaml')):
    d = yaml.safe_load(open(f))
    cfgs = {}
    for r in d['records']:
        if 'Optimized' in r['notes'] or r['prompt_tokens'] is None: continue
        n = int(re.search(r'(\d+) requests', r['notes']).group(1))
        key = (r['model'], r['hw'], r['tp'], r['prompt_tokens'], r['output_tokens'], n)
        cfgs.setdefault(key, {})[r['metric']] = r['value']
    for (model, hw, tp, P, O, n), m in cfgs.items():
        trace = os.path.join(tempfile.gettempdir(), 'rooftop-heldout-trace.csv')
        with open(trace, 'w') as t:
            t.write('arrival_s,prompt_tokens,output_tokens\n')
            for i in range(n): t.write(f'0,{P},{O}\n')
        cmd = [ROOF, 'simulate', '--model', model, '--hw', hw, '--tp', str(tp), '--precision', 'mxfp4', '--runtime', 'vllm',
               '--trace', trace, '--format', 'json'] + extra
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0: print(key, out.stderr.strip()); continue
        j = json.loads(out.stdout)
        pred = {'ttft_s': j['ttft_s']['p50'], 'tpot_s': j['tpot_s']['p50'], 'throughput_tok_s': j['output_tokens_per_s']}
        for k in ('ttft_s', 'tpot_s', 'throughput_tok_s'):
            if k in m:
                err = pred[k] / m[k] - 1
                rows.append((k, err))
                print(f'{model:12s} {hw:9s} tp{tp} {P:6d}/{O:4d} x{n:5d} {k:16s} published {m[k]:10.4g} predicted {pred[k]:10.4g} error {100*err:+7.1f}%  (preempt {j["preemptions"]})')
for k in ('ttft_s', 'tpot_s', 'throughput_tok_s'):
    e = sorted(abs(x) for m, x in rows if m == k)
    if e: print(k, 'median |error| %.0f%%' % (100*statistics.median(e)), 'worst %.0f%%' % (100*e[-1]), 'n', len(e))
