#!/usr/bin/env python3
# `rooftop simulate` on the published serving records: every record of a source measured by a client of a server
# (`harness: client` in validate/published/*.yaml) at a stated concurrency with stated prompt and output lengths is
# simulated as that closed loop (--concurrency N, fixed lengths), and the simulation's TTFT, TPOT, request time and
# throughput are set beside the printed figures. These sources are in the fit of the runtime profiles, so the errors
# are in-sample for the profile's terms; the scheduler (lockstep arrivals, token budget, KV pages) is what is checked.
# Usage (from the repository root): scripts/simulate-published.py [ROOFTOP_BINARY] [DIR]
import glob, json, re, statistics, subprocess, sys
import yaml

ROOF = sys.argv[1] if len(sys.argv) > 1 else 'build/rooftop'
DIR = sys.argv[2] if len(sys.argv) > 2 else 'validate/published'
V1_FROM, V1_DATE = (0, 8, 0), '2025-03-18'  # hwdb/runtimes/vllm.yaml: release_from, release_date


def runtime_of(src):
    # The profile of the source's build: the leading release number of engine_version, else the date.
    if src['engine'] != 'vllm':
        return src['engine']
    m = re.match(r'v?(\d+)\.(\d+)(?:\.(\d+))?', str(src.get('engine_version', '')))
    if m:
        return 'vllm' if tuple(int(x or 0) for x in m.groups()) >= V1_FROM else 'vllm-v0'
    return 'vllm' if str(src['source'].get('date', '')) >= V1_DATE else 'vllm-v0'


def stat_of(rec):
    # The statistic the record states: a median (p50) when its notes say so, else the mean.
    return 'p50' if re.search(r'median|p50', rec.get('notes', ''), re.I) else 'mean'


rows = []
for f in sorted(glob.glob(DIR + '/*.yaml')):
    src = yaml.safe_load(open(f))
    if src.get('harness') != 'client':
        continue
    runtime = runtime_of(src)
    groups = {}
    for r in src['records']:
        if r.get('request_rate') or not r.get('batch') or not r.get('prompt_tokens') or not r.get('output_tokens'):
            continue
        key = (r['model'], r['hw'], r.get('tp') or r['hw_count'], r['weights'], r.get('kv', 'default'),
               r['prompt_tokens'], r['output_tokens'], r['batch'])
        groups.setdefault(key, []).append(r)
    for (model, hw, tp, weights, kv, P, O, n), recs in groups.items():
        cmd = [ROOF, 'simulate', '--model', model, '--hw', hw, '--tp', str(tp), '--precision', weights, '--runtime', runtime,
               '--concurrency', str(n), '--requests', str(max(200, 10 * n)), '--prompt-tokens', str(P),
               '--output-tokens', str(O), '--format', 'json']
        if kv not in ('default', None):
            cmd += ['--kv-precision', kv]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0 and 'no memory is left' in out.stderr:
            # The source ran it, so its user raised the runtime's memory share (vLLM's --gpu-memory-utilization):
            # 0.95, as far as vLLM's own start-up margin lets it go.
            out = subprocess.run(cmd + ['--memory-fraction', '0.95'], capture_output=True, text=True)
        if out.returncode != 0:
            print(f'{f}: skipped {model} on {hw}: {out.stderr.strip()}')
            continue
        j = json.loads(out.stdout)
        for r in recs:
            m, s = r['metric'], stat_of(r)
            pred = {'ttft_s': j['ttft_s'][s], 'tpot_s': j['tpot_s'][s], 'request_s': j['e2e_s'][s],
                    'throughput_tok_s': j['output_tokens_per_s'],
                    'total_tok_s': j['output_tokens_per_s'] * (P + O) / O}.get(m)
            if pred is None:
                continue
            err = pred / r['value'] - 1
            rows.append((m, err))
            print(f'{f.split("/")[-1][:40]:40s} {runtime:8s} {model[:16]:16s} {hw[:14]:14s} tp{tp} {P:5d}/{O:4d} c{n:4d} '
                  f'{m:16s} {s:4s} published {r["value"]:10.4g} simulated {pred:10.4g} {100 * err:+7.1f}%')
print()
for k in ('ttft_s', 'tpot_s', 'request_s', 'throughput_tok_s', 'total_tok_s'):
    e = sorted(abs(x) for m, x in rows if m == k)
    if e:
        print(f'{k:16s} records {len(e):3d}  median |error| {100 * statistics.median(e):5.1f}%  worst {100 * e[-1]:5.1f}%')
e = sorted(abs(x) for _, x in rows)
if e:
    print(f'{"all":16s} records {len(e):3d}  median |error| {100 * statistics.median(e):5.1f}%  worst {100 * e[-1]:5.1f}%')
