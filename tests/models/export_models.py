"""Export the real-model test assets: tests/models/onnx/<name>.onnx and <name>.npz.

Models as users get them: `torch.onnx.export` of `transformers` models built from tiny
random-weight configs (no hub download), and `torch.nn` models with LSTM, GRU and scripted
control flow (If, Loop). Each one is exported at one opset in 13-18, weights inside the .onnx
file (no external data), and saved with a seeded sample input (<name>.npz, keyed by graph
input name). Most have static input shapes, as minitvm compiled only static shapes when they
were made. The three named *_dynamic (bert_dynamic, gpt2_dynamic, vit_dynamic) are test
assets for symbolic dimensions: bert() and gpt2() with symbolic batch and sequence axes
(dim_params "batch" and "sequence" on every input, and on the outputs' leading axes), vit()
with a symbolic batch axis (its image size stays fixed), each exported with the TorchScript
exporter's `dynamic_axes` (the `Export.dynamic_axes` field), sharing the weights of its static
twin, and with a sample input of another shape than the static one's (bert 2x11, gpt2 2x9,
vit batch 3).
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
caught here and not in minitvm's tests; a dynamic export is checked at a second shape as well
(batch 1, and sequence 5 for bert and gpt2; not saved), so that an axis the trace turned into
a constant fails the export.
"""

from __future__ import annotations

import argparse
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

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
    order, named as the graph's inputs), its output names and how to export it.

    `dynamic_axes` makes axes symbolic, as the TorchScript exporter's argument of that name:
    {input or output name: {axis: dim_param name}}; None (the default) exports every shape
    static. A dynamic export also gives `other_inputs`, inputs of another shape (not saved)
    on which ONNX Runtime must match torch too, so that an axis traced to a constant
    somewhere in the graph fails the export."""

    module: nn.Module
    inputs: dict[str, torch.Tensor]
    outputs: list[str]
    opset: int
    dynamo: bool = False
    description: str = ""
    dynamic_axes: dict[str, dict[int, str]] | None = None
    other_inputs: dict[str, torch.Tensor] | None = None


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


def _text_axes(inputs: list[str], outputs: dict[str, int]) -> dict[str, dict[int, str]]:
    """Axes 0 and 1 of every input named batch and sequence; of each output, the first
    `rank` of them (2: batch and sequence, 1: batch alone)."""
    names = {0: "batch", 1: "sequence"}
    axes = {name: dict(names) for name in inputs}
    axes.update({name: {a: names[a] for a in range(rank)} for name, rank in outputs.items()})
    return axes


def _padding_masks(batch: int, seq: int, pads: list[int]) -> torch.Tensor:
    """A batch of padding masks, row i with `pads[i]` zeros at its end."""
    mask = torch.ones(batch, seq, dtype=torch.int64)
    for row, pad in enumerate(pads):
        mask[row, seq - pad :] = 0
    return mask


def bert_dynamic() -> Export:
    """`bert()` (the same config, and the same weights: its sample input is drawn before the
    model), exported with symbolic batch and sequence axes; saved at batch 2, sequence 11,
    the second sentence padded, and checked again at batch 1, sequence 5."""
    spec = bert()

    def sample(batch: int, seq: int, pads: list[int]) -> dict[str, torch.Tensor]:
        token_types = torch.zeros(batch, seq, dtype=torch.int64)
        token_types[:, seq // 2 :] = 1
        return {
            "input_ids": torch.randint(0, 1000, (batch, seq), dtype=torch.int64),
            "attention_mask": _padding_masks(batch, seq, pads),
            "token_type_ids": token_types,
        }

    return replace(
        spec, inputs=sample(2, 11, [0, 3]), other_inputs=sample(1, 5, [1]),
        dynamic_axes=_text_axes(
            list(spec.inputs), {"last_hidden_state": 2, "pooler_output": 1}
        ),
        description="BertModel: hidden 64, 2 layers, 2 heads, vocab 1000, dynamic batch and "
        "sequence (sample 2 x 11, padded mask)",
    )  # fmt: skip


def gpt2_dynamic() -> Export:
    """`gpt2()` (config and weights) with symbolic batch and sequence axes; saved at batch 2,
    sequence 9, the second row padded, and checked again at batch 1, sequence 5."""
    spec = gpt2()

    def sample(batch: int, seq: int, pads: list[int]) -> dict[str, torch.Tensor]:
        return {
            "input_ids": torch.randint(0, 1000, (batch, seq), dtype=torch.int64),
            "attention_mask": _padding_masks(batch, seq, pads),
        }

    return replace(
        spec, inputs=sample(2, 9, [0, 2]), other_inputs=sample(1, 5, [0]),
        dynamic_axes=_text_axes(list(spec.inputs), {"logits": 2}),
        description="GPT2LMHeadModel: hidden 64, 2 layers, 2 heads, vocab 1000, causal, "
        "dynamic batch and sequence (sample 2 x 9, padded mask)",
    )  # fmt: skip


def vit_dynamic() -> Export:
    """`vit()` (config and weights) with a symbolic batch axis (the image size stays 32x32);
    saved at batch 3 and checked again at batch 1."""
    spec = vit()
    batch = {0: "batch"}
    return replace(
        spec, inputs={"pixel_values": torch.randn(3, 3, 32, 32)},
        other_inputs={"pixel_values": torch.randn(1, 3, 32, 32)},
        dynamic_axes={name: batch for name in ["pixel_values", *spec.outputs]},
        description="ViTModel: 32x32 images, patch 8, hidden 64, 2 layers, 2 heads, dynamic "
        "batch (sample 3)",
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
    "bert_dynamic": bert_dynamic,
    "gpt2_dynamic": gpt2_dynamic,
    "vit_dynamic": vit_dynamic,
}


def export(name: str, build: Callable[[], Export]) -> None:
    torch.manual_seed(0)
    spec = build()
    args = tuple(spec.inputs.values())
    with torch.no_grad():
        expected = spec.module(*args)
    expected = [expected] if isinstance(expected, torch.Tensor) else list(expected)
    if spec.dynamic_axes is not None:
        # torch's outputs at the other shape, before the export: the TorchScript exporter
        # puts the module back in the training mode it found it in, and _Outputs is never
        # put in eval mode (only the model inside it), so after the export every submodule
        # is training and the dropouts are on
        assert spec.other_inputs is not None, f"{name}: dynamic export without other_inputs"
        assert list(spec.other_inputs) == list(spec.inputs), f"{name}: other_inputs' names"
        with torch.no_grad():
            other = spec.module(*spec.other_inputs.values())
        other = [other] if isinstance(other, torch.Tensor) else list(other)
    buffer = io.BytesIO()
    if spec.dynamo:
        assert spec.dynamic_axes is None, f"{name}: dynamic axes need the TorchScript exporter"
        program = torch.onnx.export(
            spec.module, args, dynamo=True, opset_version=spec.opset, external_data=False,
            input_names=list(spec.inputs), output_names=spec.outputs, optimize=True,
        )  # fmt: skip
        assert program is not None
        program.save(buffer, external_data=False)
    else:
        torch.onnx.export(
            spec.module, args, buffer, dynamo=False, opset_version=spec.opset,
            input_names=list(spec.inputs), output_names=spec.outputs,
            dynamic_axes=spec.dynamic_axes,
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
    checked = ""
    if spec.dynamic_axes is not None:
        _check_dims(name, model, spec.dynamic_axes)
        # the same graph at another shape: catches a dynamic axis traced to a constant
        assert spec.other_inputs is not None
        other_feeds = {k: v.numpy() for k, v in spec.other_inputs.items()}
        _check_with_ort(f"{name} at {_shapes(other_feeds)}", model, other_feeds,
                        [t.numpy() for t in other])  # fmt: skip
        checked = f"; ORT matches torch at {_shapes(feeds)} and at {_shapes(other_feeds)}"
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, f"{name}.onnx")
    onnx.save(model, path)
    np.savez(os.path.join(OUT_DIR, f"{name}.npz"), **feeds)
    print(f"{name}: opset {opset}, {os.path.getsize(path) / 1024:.0f} KB, "
          f"{len(model.graph.node)} nodes -> {os.path.relpath(path)}{checked}")  # fmt: skip


def _shapes(feeds: dict[str, np.ndarray]) -> str:
    return ", ".join(f"{k} {'x'.join(map(str, v.shape))}" for k, v in feeds.items())


def _check_dims(name: str, model: onnx.ModelProto, axes: dict[str, dict[int, str]]) -> None:
    """The graph's inputs have the symbolic axes `axes` names and no others, its outputs at
    least those: the exporter names the declared axes of both, but where its shape inference
    loses a static output axis (ViT's last_hidden_state: sequence and hidden) it names that
    one itself (LayerNormalizationlast_hidden_state_dim_1)."""
    inputs = {value.name for value in model.graph.input}
    for value in [*model.graph.input, *model.graph.output]:
        dims = value.type.tensor_type.shape.dim
        symbolic = {a: d.dim_param for a, d in enumerate(dims) if not d.HasField("dim_value")}
        wanted = axes.get(value.name, {})
        got = symbolic if value.name in inputs else {a: symbolic.get(a) for a in wanted}
        assert got == wanted, f"{name}: {value.name} has symbolic axes {symbolic}, wanted {wanted}"


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
