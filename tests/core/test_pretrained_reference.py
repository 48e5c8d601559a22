"""An independent reference, where Hugging Face transformers (and so torch) is installed: never a requirement.

Skipped otherwise, as tests/core/test_torch_reference.py is. Each model is compared on the same files the
engine reads: MiniLM's safetensors folder, SmolLM2's GGUF (transformers dequantizes it to float32 too).
"""

from __future__ import annotations

import numpy as np
import pytest

from .models import need

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

TEXT = "The cat sat on the mat because it was warm."


def test_minilm_matches_transformers() -> None:
    from attention_core.pretrained import _minilm

    m = need("all-MiniLM-L6-v2")
    folder = _minilm._file("config.json").parent
    ref = transformers.AutoModel.from_pretrained(str(folder), attn_implementation="eager").eval()
    t = m.run(TEXT)
    with torch.no_grad():
        out = ref(torch.tensor([t.token_ids]), output_attentions=True, output_hidden_states=True)
    np.testing.assert_allclose(t.attentions, torch.stack(out.attentions)[:, 0].numpy(), atol=2e-5)
    np.testing.assert_allclose(t.hidden_states, torch.stack(out.hidden_states)[:, 0].numpy(), atol=2e-4)


def test_smollm2_matches_transformers() -> None:
    from attention_core.pretrained import _files, _smollm2

    m = need("SmolLM2-135M")
    folder = _files.package_dir(_smollm2.MODULE, _smollm2.PACKAGE, _smollm2.VERSION, _smollm2.NAME)
    ref = transformers.AutoModelForCausalLM.from_pretrained(
        str(folder), gguf_file=_smollm2.FILE, attn_implementation="eager", torch_dtype=torch.float32
    ).eval()
    t = m.run("The capital of France is")
    with torch.no_grad():
        out = ref(torch.tensor([t.token_ids]), output_attentions=True)
    np.testing.assert_allclose(t.attentions, torch.stack(out.attentions)[:, 0].numpy(), atol=1e-4)
    np.testing.assert_allclose(t.logits, out.logits[0].numpy(), atol=2e-3, rtol=1e-4)
