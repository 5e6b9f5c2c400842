"""A tiny Qwen2-architecture GGUF with random weights and a real tokenizer and chat template.

Usage: make-tiny-gguf.py <vocab.gguf> <chat-template.jinja> <out.gguf>

The vocabulary (tokens, merges, special ids) is copied from llama.cpp's ggml-vocab-qwen2.gguf and
the Qwen2.5 Instruct chat template (tool calls as <tool_call> JSON) is set, so llama-server runs
its real templating, tokenizer, SSE, usage and tool-call parsing. The weights are random: the text
is gibberish, but every code path a real model takes is taken. Needs llama.cpp's gguf-py on
PYTHONPATH and numpy.
"""
import sys

import numpy as np
from gguf import GGUFReader, GGUFValueType, GGUFWriter

vocab_path, template_path, out_path = sys.argv[1:4]
reader = GGUFReader(vocab_path)
n_vocab = len(reader.fields["tokenizer.ggml.tokens"].contents())
n_embd, n_layer, n_head, n_head_kv, n_ff = 64, 2, 4, 2, 128
head_dim = n_embd // n_head

writer = GGUFWriter(out_path, "qwen2")
writer.add_name("scout-tiny-random")
writer.add_context_length(4096)
writer.add_embedding_length(n_embd)
writer.add_block_count(n_layer)
writer.add_feed_forward_length(n_ff)
writer.add_head_count(n_head)
writer.add_head_count_kv(n_head_kv)
writer.add_rope_freq_base(1_000_000.0)
writer.add_layer_norm_rms_eps(1e-6)
writer.add_file_type(1)

for key, field in reader.fields.items():
    if not key.startswith("tokenizer.") or key == "tokenizer.chat_template":
        continue
    value = field.contents()
    kind = field.types[0]
    if kind == GGUFValueType.ARRAY:
        writer.add_array(key, value)
    elif kind == GGUFValueType.STRING:
        writer.add_string(key, value)
    elif kind == GGUFValueType.UINT32:
        writer.add_uint32(key, value)
    elif kind == GGUFValueType.INT32:
        writer.add_int32(key, value)
    elif kind == GGUFValueType.BOOL:
        writer.add_bool(key, value)
with open(template_path, encoding="utf-8") as template:
    writer.add_chat_template(template.read())

rng = np.random.default_rng(16)


def weight(*shape):
    return (rng.standard_normal(shape) * 0.02).astype(np.float16)


def ones(n):
    return np.ones(n, dtype=np.float32)


writer.add_tensor("token_embd.weight", weight(n_vocab, n_embd))
writer.add_tensor("output_norm.weight", ones(n_embd))
for i in range(n_layer):
    p = f"blk.{i}."
    writer.add_tensor(p + "attn_norm.weight", ones(n_embd))
    writer.add_tensor(p + "attn_q.weight", weight(n_embd, n_embd))
    writer.add_tensor(p + "attn_q.bias", np.zeros(n_embd, dtype=np.float32))
    writer.add_tensor(p + "attn_k.weight", weight(head_dim * n_head_kv, n_embd))
    writer.add_tensor(p + "attn_k.bias", np.zeros(head_dim * n_head_kv, dtype=np.float32))
    writer.add_tensor(p + "attn_v.weight", weight(head_dim * n_head_kv, n_embd))
    writer.add_tensor(p + "attn_v.bias", np.zeros(head_dim * n_head_kv, dtype=np.float32))
    writer.add_tensor(p + "attn_output.weight", weight(n_embd, n_embd))
    writer.add_tensor(p + "ffn_norm.weight", ones(n_embd))
    writer.add_tensor(p + "ffn_gate.weight", weight(n_ff, n_embd))
    writer.add_tensor(p + "ffn_up.weight", weight(n_ff, n_embd))
    writer.add_tensor(p + "ffn_down.weight", weight(n_embd, n_ff))

writer.write_header_to_file()
writer.write_kv_data_to_file()
writer.write_tensors_to_file()
writer.close()
print(f"wrote {out_path}: vocab {n_vocab}, {n_layer} layers of {n_embd}")
