#!/usr/bin/env python3
"""Writes the issue-18 reproducers into tests/fuzz/regressions/ (run once; the files are committed).

Each file once crashed or hung rooftop; the regression run feeds them to the fuzz targets and the
bad-input sweep feeds them to the CLI, which must answer exit 2 with one line."""
import os, struct

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions")

def gguf_kv(key, vtype, payload):
    k = key.encode()
    return struct.pack("<Q", len(k)) + k + struct.pack("<I", vtype) + payload

def gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b

def u32(v): return struct.pack("<I", v)
def u64(v): return struct.pack("<Q", v)

def gguf(kvs):
    return b"GGUF" + u32(3) + u64(0) + u64(len(kvs)) + b"".join(kvs)

# 1. llama.block_count = 7.2e16 (uint64): the importer looped once per layer (hang, issue 18).
huge_layers = gguf([
    gguf_kv("general.architecture", 8, gguf_str("llama")),
    gguf_kv("llama.block_count", 10, u64(72_057_594_037_927_936)),
    gguf_kv("llama.embedding_length", 4, u32(576)),
    gguf_kv("llama.attention.head_count", 4, u32(9)),
    gguf_kv("llama.feed_forward_length", 4, u32(1536)),
    gguf_kv("tokenizer.ggml.tokens", 9, u32(8) + u64(2) + gguf_str("a") + gguf_str("b")),
])
open(os.path.join(here, "gguf", "block_count_7e16.gguf"), "wb").write(huge_layers)

# 2. Hidden size 2^62 with 2^60 heads: products of dimensions wrapped around int64.
wrap = gguf([
    gguf_kv("general.architecture", 8, gguf_str("llama")),
    gguf_kv("llama.block_count", 4, u32(30)),
    gguf_kv("llama.embedding_length", 10, u64(1 << 62)),
    gguf_kv("llama.attention.head_count", 10, u64(1 << 60)),
    gguf_kv("llama.feed_forward_length", 10, u64(1 << 62)),
    gguf_kv("tokenizer.ggml.tokens", 9, u32(8) + u64(1) + gguf_str("a")),
])
open(os.path.join(here, "gguf", "dims_wrap_int64.gguf"), "wb").write(wrap)

# 3. config.json with a value nested 100,000 lists deep: the error message dumped it (stack overflow).
deep = "[" * 100_000 + "1" + "]" * 100_000
open(os.path.join(here, "hf_config", "nested_100k.json"), "w").write(
    '{"model_type": "llama", "vocab_size": ' + deep + "}")

# 4. config.json whose hidden size does not divide by its heads (no head_dim): was accepted.
open(os.path.join(here, "hf_config", "hidden_not_divisible.json"), "w").write(
    '{"model_type": "llama", "vocab_size": 1000, "hidden_size": 100, "num_hidden_layers": 2,'
    ' "num_attention_heads": 7, "intermediate_size": 256}')

# 5. A calibration file with its schema nested 100,000 lists deep (crashed hw show cpu / fit --hw cpu).
open(os.path.join(here, "calibration", "nested_100k.json"), "w").write('{"schema": ' + deep + "}")

# 6. A chip card with memory_bytes 1e308: printed numbers hundreds of digits long.
open(os.path.join(here, "card", "memory_1e308.yaml"), "w").write(
    "id: huge\nname: Huge\nvendor: X\nkind: gpu\nmemory_bytes: 1e308\nmemory_bandwidth_bytes_per_s: 3.35e12\n"
    "peak_flops:\n  bf16: 9.89e14\nsources:\n  - https://example.com\n")
