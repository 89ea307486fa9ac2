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
open(os.path.join(here, "cards", "memory_1e308.yaml"), "w").write(
    "id: huge\nname: Huge\nvendor: X\nkind: gpu\nmemory_bytes: 1e308\nmemory_bandwidth_bytes_per_s: 3.35e12\n"
    "peak_flops:\n  bf16: 9.89e14\nsources:\n  - https://example.com\n")

# Seed for the GGUF target: a small valid llama file (2 layers, hidden 8, 4 heads, 2 KV heads, vocab 6,
# f32 tensors) that the importer, the engine's loader and the tokenizer all accept.
def tensor_info(name, dims, offset):
    return gguf_str(name) + u32(len(dims)) + b"".join(u64(d) for d in dims) + u32(0) + u64(offset)

def small_llama():
    D, F, L, V, H, HK = 8, 16, 2, 6, 4, 2
    hd = D // H
    shapes = [("token_embd.weight", [D, V]), ("output_norm.weight", [D])]
    for i in range(L):
        p = f"blk.{i}."
        shapes += [(p + "attn_norm.weight", [D]), (p + "attn_q.weight", [D, H * hd]), (p + "attn_k.weight", [D, HK * hd]),
                   (p + "attn_v.weight", [D, HK * hd]), (p + "attn_output.weight", [H * hd, D]), (p + "ffn_norm.weight", [D]),
                   (p + "ffn_gate.weight", [D, F]), (p + "ffn_up.weight", [D, F]), (p + "ffn_down.weight", [F, D])]
    tokens = ["a", "b", "c", "ab", "<s>", "</s>"]
    kvs = [
        gguf_kv("general.architecture", 8, gguf_str("llama")),
        gguf_kv("llama.block_count", 4, u32(L)),
        gguf_kv("llama.embedding_length", 4, u32(D)),
        gguf_kv("llama.attention.head_count", 4, u32(H)),
        gguf_kv("llama.attention.head_count_kv", 4, u32(HK)),
        gguf_kv("llama.feed_forward_length", 4, u32(F)),
        gguf_kv("llama.context_length", 4, u32(64)),
        gguf_kv("tokenizer.ggml.model", 8, gguf_str("gpt2")),
        gguf_kv("tokenizer.ggml.tokens", 9, u32(8) + u64(len(tokens)) + b"".join(gguf_str(t) for t in tokens)),
        gguf_kv("tokenizer.ggml.merges", 9, u32(8) + u64(1) + gguf_str("a b")),
        gguf_kv("tokenizer.ggml.bos_token_id", 4, u32(4)),
        gguf_kv("tokenizer.ggml.eos_token_id", 4, u32(5)),
    ]
    infos, offset, data = b"", 0, b""
    for name, dims in shapes:
        n = 1
        for d in dims: n *= d
        infos += tensor_info(name, dims, offset)
        blob = struct.pack(f"<{n}f", *[((i * 37 + len(name)) % 17 - 8) / 16.0 or 0.5 for i in range(n)])
        blob += b"\0" * ((-len(blob)) % 32)
        data += blob
        offset += len(blob)
    head = b"GGUF" + u32(3) + u64(len(shapes)) + u64(len(kvs)) + b"".join(kvs) + infos
    head += b"\0" * ((-len(head)) % 32)
    return head + data

corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "gguf")
os.makedirs(corpus, exist_ok=True)
open(os.path.join(corpus, "small_llama.gguf"), "wb").write(small_llama())
