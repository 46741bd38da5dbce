"""Export the real-model test assets: tests/models/onnx/<name>.onnx and <name>.npz.

Models as users get them: `torch.onnx.export` of `transformers` models built from tiny
random-weight configs (no hub download), and `torch.nn` models with LSTM, GRU and scripted
control flow (If, Loop). Each one is exported at one opset in 13-18 with static input shapes
(minitvm compiles static shapes only), weights inside the .onnx file (no external data), and
saved with a seeded sample input (<name>.npz, keyed by graph input name).
tests/unit/test_exported_models.py checks minitvm against ONNX Runtime on them and
bench/exported_models.py times them; neither needs torch.

This script needs torch, so it runs in a venv of its own, outside the repository (minitvm's
venv and CI never install torch):

    python3 -m venv /work/exportvenv
    /work/exportvenv/bin/pip install torch==2.13.0 transformers onnx onnxscript onnxruntime numpy
    /work/exportvenv/bin/python tests/models/export_models.py [names...]

(torch 2.13.0 CPU; onnxscript is the dynamo exporter's; onnxruntime only for the check
below.) Every model is built with `torch.manual_seed(0)`, so a re-export from the same
package versions writes the same files, byte for byte; they record the versions in their
`producer_version` and in `doc_string`. After each export the script runs the .onnx file in
ONNX Runtime on the sample input and checks it against torch's outputs, so a broken export is
caught here and not in minitvm's tests.
"""

from __future__ import annotations

import argparse
import io
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
import torch
import transformers
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "onnx")

#: Weights drawn at N(0, 0.125) = 1/sqrt(hidden 64) instead of transformers' 0.02, so that
#: activations stay O(1) through the layers and attention is not uniform: with 0.02 every
#: softmax is flat and a wrong mask or bias would hardly move the outputs.
INIT_STD = 0.125
SEQ = 16


@dataclass
class Export:
    """A model ready to export: the module, its sample inputs (in the module's positional
    order, named as the graph's inputs), its output names and how to export it."""

    module: nn.Module
    inputs: dict[str, torch.Tensor]
    outputs: list[str]
    opset: int
    dynamo: bool = False
    description: str = ""


def _ids(vocab: int, seq: int = SEQ) -> torch.Tensor:
    return torch.randint(0, vocab, (1, seq), dtype=torch.int64)


def _padding_mask(seq: int = SEQ, pad: int = 4) -> torch.Tensor:
    """Ones, then `pad` zeros at the end: the mask a tokenizer pads a short sentence with."""
    mask = torch.ones(1, seq, dtype=torch.int64)
    mask[:, seq - pad :] = 0
    return mask


class _Outputs(nn.Module):
    """A transformers model called with keyword arguments and returning a tuple of tensors:
    the exporters trace positional inputs, and the model's ModelOutput dataclass would become
    an output per field that happens to be set."""

    def __init__(self, model: nn.Module, names: list[str], fields: list[str]) -> None:
        super().__init__()
        self.model, self.names, self.fields = model, names, fields

    def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = self.model(**dict(zip(self.names, args, strict=True)), return_dict=True)
        return tuple(out[f] for f in self.fields)


def _wrap(model: nn.Module, inputs: dict[str, torch.Tensor], fields: list[str]) -> nn.Module:
    return _Outputs(model.eval(), list(inputs), fields)


def bert() -> Export:
    config = transformers.BertConfig(
        vocab_size=1000, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=128, max_position_embeddings=64, initializer_range=INIT_STD,
        attn_implementation="eager",
    )  # fmt: skip
    inputs = {
        "input_ids": _ids(1000),
        "attention_mask": _padding_mask(),
        "token_type_ids": torch.cat([torch.zeros(1, 8), torch.ones(1, 8)], 1).long(),
    }
    model = transformers.BertModel(config)
    return Export(
        _wrap(model, inputs, ["last_hidden_state", "pooler_output"]), inputs,
        ["last_hidden_state", "pooler_output"], opset=14,
        description="BertModel: hidden 64, 2 layers, 2 heads, vocab 1000, seq 16, padded mask",
    )  # fmt: skip


def gpt2() -> Export:
    config = transformers.GPT2Config(
        vocab_size=1000, n_embd=64, n_layer=2, n_head=2, n_inner=128, n_positions=64,
        bos_token_id=0, eos_token_id=0, initializer_range=INIT_STD, use_cache=False,
        attn_implementation="eager",
    )  # fmt: skip
    inputs = {"input_ids": _ids(1000), "attention_mask": _padding_mask()}
    model = transformers.GPT2LMHeadModel(config)
    return Export(
        _wrap(model, inputs, ["logits"]), inputs, ["logits"], opset=13,
        description="GPT2LMHeadModel: hidden 64, 2 layers, 2 heads, vocab 1000, seq 16, causal",
    )  # fmt: skip


def t5_encoder() -> Export:
    config = transformers.T5Config(
        vocab_size=1000, d_model=64, d_kv=32, d_ff=128, num_layers=2, num_heads=2,
        relative_attention_num_buckets=8, relative_attention_max_distance=16,
        initializer_factor=1.0, use_cache=False, attn_implementation="eager",
    )  # fmt: skip
    inputs = {"input_ids": _ids(1000), "attention_mask": _padding_mask()}
    model = transformers.T5EncoderModel(config)
    return Export(
        _wrap(model, inputs, ["last_hidden_state"]), inputs, ["last_hidden_state"], opset=15,
        description="T5EncoderModel: d_model 64, 2 layers, 2 heads, vocab 1000, seq 16, "
        "relative position buckets",
    )  # fmt: skip


def vit() -> Export:
    config = transformers.ViTConfig(
        image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=128, initializer_range=INIT_STD,
        attn_implementation="eager",
    )  # fmt: skip
    inputs = {"pixel_values": torch.randn(1, 3, 32, 32)}
    model = transformers.ViTModel(config)
    return Export(
        _wrap(model, inputs, ["last_hidden_state", "pooler_output"]), inputs,
        ["last_hidden_state", "pooler_output"], opset=17,
        description="ViTModel: 32x32 images, patch 8, hidden 64, 2 layers, 2 heads",
    )  # fmt: skip


def whisper_encoder() -> Export:
    config = transformers.WhisperConfig(
        vocab_size=1000, num_mel_bins=16, d_model=64, encoder_layers=2,
        encoder_attention_heads=2, encoder_ffn_dim=128, decoder_layers=1,
        decoder_attention_heads=2, decoder_ffn_dim=128, max_source_positions=16,
        max_target_positions=16, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        decoder_start_token_id=1, init_std=INIT_STD, attn_implementation="eager",
    )  # fmt: skip
    # the encoder wants exactly 2 * max_source_positions frames (its convs halve them)
    inputs = {"input_features": torch.randn(1, 16, 32)}
    model = transformers.models.whisper.modeling_whisper.WhisperEncoder(config)
    return Export(
        _wrap(model, inputs, ["last_hidden_state"]), inputs, ["last_hidden_state"], opset=18,
        dynamo=True,
        description="WhisperEncoder: 16 mel bins x 32 frames, d_model 64, 2 layers, 2 heads",
    )  # fmt: skip


class LSTMTagger(nn.Module):
    """A sequence tagger: a 2-layer bidirectional LSTM and a linear head on every step."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.LSTM(16, 32, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(64, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(x)
        return self.head(out)


class GRUClassifier(nn.Module):
    """A sequence classifier: a 1-layer GRU, its last hidden state through a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.GRU(16, 32, batch_first=True)
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, hidden = self.rnn(x)
        return out, self.head(hidden[0])


def lstm() -> Export:
    inputs = {"x": torch.randn(1, 10, 16)}
    return Export(
        LSTMTagger().eval(), inputs, ["tags"], opset=14,
        description="nn.LSTM(16, 32, num_layers=2, bidirectional) + Linear(64, 8), 1x10x16",
    )  # fmt: skip


def gru() -> Export:
    inputs = {"x": torch.randn(1, 10, 16)}
    return Export(
        GRUClassifier().eval(), inputs, ["sequence", "logits"], opset=13,
        description="nn.GRU(16, 32) + Linear(32, 4) on the last state, 1x10x16",
    )  # fmt: skip


class ScriptedControlFlow(nn.Module):
    """Control flow as torch.jit.script exports it: a `for` loop over the rows of x (ONNX
    Loop, its trip count from Shape; each step reads row i and carries h) and a
    data-dependent `if` on the result (ONNX If on a computed condition)."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            h = torch.tanh(self.proj(h) + x[i])
        if bool(h.sum() > 0):
            y = h * 2.0
        else:
            y = h - 1.0
        return y


class ScriptedLoop(nn.Module):
    """The same `for` loop without the data-dependent `if`: control flow whose course the
    input shapes fix, as scripted code that branches only on shapes exports it (the Loop
    stays, its trip count folded to 5; the exporter folds the `if` on x.size(1) away)."""

    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            h = torch.tanh(self.proj(h) + x[i])
        if x.size(1) > 4:
            h = h * 2.0
        return h


def scripted_control_flow() -> Export:
    inputs = {"x": torch.randn(5, 8)}
    return Export(
        torch.jit.script(ScriptedControlFlow().eval()), inputs, ["y"], opset=16,
        description="torch.jit.script: h = tanh(Linear(8, 8)(h) + x[i]) for each of the 5 "
        "rows of x, then `if h.sum() > 0`",
    )  # fmt: skip


def scripted_loop() -> Export:
    inputs = {"x": torch.randn(5, 8)}
    return Export(
        torch.jit.script(ScriptedLoop().eval()), inputs, ["y"], opset=15,
        description="torch.jit.script: h = tanh(Linear(8, 8)(h) + x[i]) for each of the 5 "
        "rows of x, then `if x.size(1) > 4`",
    )  # fmt: skip


MODELS: dict[str, Callable[[], Export]] = {
    "bert": bert,
    "gpt2": gpt2,
    "t5_encoder": t5_encoder,
    "vit": vit,
    "whisper_encoder": whisper_encoder,
    "lstm": lstm,
    "gru": gru,
    "scripted_control_flow": scripted_control_flow,
    "scripted_loop": scripted_loop,
}


def export(name: str, build: Callable[[], Export]) -> None:
    torch.manual_seed(0)
    spec = build()
    args = tuple(spec.inputs.values())
    with torch.no_grad():
        expected = spec.module(*args)
    expected = [expected] if isinstance(expected, torch.Tensor) else list(expected)
    buffer = io.BytesIO()
    if spec.dynamo:
        program = torch.onnx.export(
            spec.module, args, dynamo=True, opset_version=spec.opset, external_data=False,
            input_names=list(spec.inputs), output_names=spec.outputs, optimize=True,
        )  # fmt: skip
        assert program is not None
        program.save(buffer, external_data=False)
    else:
        torch.onnx.export(
            spec.module, args, buffer, dynamo=False, opset_version=spec.opset,
            input_names=list(spec.inputs), output_names=spec.outputs, dynamic_axes=None,
        )  # fmt: skip
    model = onnx.load_from_string(buffer.getvalue())
    _drop_node_metadata(model.graph)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    assert opset == spec.opset, f"{name}: exported at opset {opset}, wanted {spec.opset}"
    model.doc_string = (
        f"{spec.description}. Exported by tests/models/export_models.py with torch "
        f"{torch.__version__} ({'dynamo' if spec.dynamo else 'TorchScript'} exporter), "
        f"transformers {transformers.__version__}, onnx {onnx.__version__}; random weights, "
        "seed 0."
    )
    onnx.checker.check_model(model, full_check=True)
    feeds = {k: v.numpy() for k, v in spec.inputs.items()}
    _check_with_ort(name, model, feeds, [t.numpy() for t in expected])
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, f"{name}.onnx")
    onnx.save(model, path)
    np.savez(os.path.join(OUT_DIR, f"{name}.npz"), **feeds)
    print(f"{name}: opset {opset}, {os.path.getsize(path) / 1024:.0f} KB, "
          f"{len(model.graph.node)} nodes -> {os.path.relpath(path)}")  # fmt: skip


def _drop_node_metadata(graph: onnx.GraphProto) -> None:
    """Drop the dynamo exporter's per-node debugging metadata (stack traces with this
    machine's paths and this script's line numbers, FX node text, module scopes): 100 KB of
    the Whisper encoder's 450, and a file that changed whenever this script was edited."""
    for node in graph.node:
        del node.metadata_props[:]
        for attribute in node.attribute:
            for subgraph in [attribute.g, *attribute.graphs]:
                _drop_node_metadata(subgraph)


def _check_with_ort(
    name: str, model: onnx.ModelProto, feeds: dict[str, np.ndarray], expected: list[np.ndarray]
) -> None:
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, feeds)
    assert len(got) == len(expected), f"{name}: {len(got)} outputs, torch gave {len(expected)}"
    for i, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5, err_msg=f"{name}[{i}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help=f"any of {', '.join(MODELS)} (default: all)")
    args = parser.parse_args()
    unknown = sorted(set(args.models) - set(MODELS))
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; choose from {', '.join(MODELS)}")
    for name in args.models or list(MODELS):
        export(name, MODELS[name])


if __name__ == "__main__":
    main()
