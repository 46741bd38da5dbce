"""ONNX converters for the recurrent layers LSTM, GRU and RNN, as graph ops.

Per direction:

    XW = X @ W^T + (Wb + Rb)            one GEMM over every time step ([T*B, I] @ [I, G*H])
    xw_0 .. xw_{T-1} = split(XW)        one kernel, T results
    for t (unrolled over the static sequence length):
        gates = H @ R^T + xw_t          the hidden-state GEMM, the projection in its epilogue
        H, C = cell(gates, H, C)        the gate math: two fused kernels (C, then H)
    Y = concat(H_0 .. H_{T-1})

Every step's kernels are the same code with different buffers, so te-merge-kernels makes
one kernel of each: the unrolled sequence costs calls, not compile time. (minitvm has no
loop construct yet; when it has, the step becomes its body.) `sequence_lens` masks the
steps past each sequence's end (state kept, output zero, as ONNX Runtime); a reverse
direction with sequence_lens reverses each sequence within its length (graph.reverse_
sequence) around a forward recurrence. Gate orders are ONNX's: LSTM i, o, f, c; GRU z, r, h.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import SSAValue

from minitvm.dialects import graph as g
from minitvm.frontend.onnx_node import NodeContext, Value, converter

Activation = Callable[[SSAValue], SSAValue]


@dataclass
class _Layer:
    """What every recurrent op shares: the node, its shapes and attributes."""

    ctx: NodeContext
    hidden: int
    seq: int
    batch: int
    directions: list[str]  # "forward" / "reverse", one per direction index
    activations: list[tuple[str, float | None, float | None]]

    def const(self, value: float | np.ndarray, what: str) -> SSAValue:
        array = np.asarray(value, self.ctx.dtype(0))
        return self.ctx.materialize(array, f"{self.ctx.node.output[0] or 'rnn'}_{what}")

    def op(self, cls: type, *operands: SSAValue, **props: object) -> SSAValue:
        return self.ctx.make1(cls, *operands, **props)

    def activation(self, index: int) -> Activation:
        name, alpha, beta = self.activations[index]
        return _ACTIVATIONS[name](self, alpha, beta)


def _affine(layer: _Layer, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    scaled = layer.op(g.MulOp, x, layer.const(alpha, "alpha"))
    return layer.op(g.AddOp, scaled, layer.const(beta, "beta"))


#: ONNX's activation names -> (layer, alpha, beta) -> activation (defaults per the spec).
_ACTIVATIONS: dict[str, Callable[[_Layer, float | None, float | None], Activation]] = {
    "relu": lambda l, a, b: lambda x: l.op(g.ReluOp, x),
    "tanh": lambda l, a, b: lambda x: l.op(g.TanhOp, x),
    "sigmoid": lambda l, a, b: lambda x: l.op(g.SigmoidOp, x),
    "affine": lambda l, a, b: lambda x: _affine(l, x, 1.0 if a is None else a, 0.0 if b is None else b),
    "leakyrelu": lambda l, a, b: lambda x: l.op(g.LeakyReluOp, x, alpha=0.01 if a is None else a),
    "thresholdedrelu": lambda l, a, b: lambda x: l.op(g.ThresholdedReluOp, x, alpha=1.0 if a is None else a),
    "scaledtanh": lambda l, a, b: lambda x: l.op(
        g.MulOp, l.op(g.TanhOp, l.op(g.MulOp, x, l.const(1.0 if b is None else b, "beta"))),
        l.const(1.0 if a is None else a, "alpha"),
    ),
    "hardsigmoid": lambda l, a, b: lambda x: l.op(
        g.HardSigmoidOp, x, alpha=0.2 if a is None else a, beta=0.5 if b is None else b
    ),
    "elu": lambda l, a, b: lambda x: l.op(g.EluOp, x, alpha=1.0 if a is None else a),
    "softsign": lambda l, a, b: lambda x: l.op(g.SoftsignOp, x),
    "softplus": lambda l, a, b: lambda x: l.op(g.SoftplusOp, x),
}  # fmt: skip


def _layer(ctx: NodeContext, gates: int, defaults: Sequence[str]) -> _Layer:
    shape = ctx.shape(0)
    if len(shape) != 3:
        raise ctx.error(f"X must be 3-D, got rank {len(shape)}")
    layout = ctx.attr_int("layout", 0) if ctx.opset >= 14 else 0
    seq, batch = (shape[1], shape[0]) if layout else (shape[0], shape[1])
    direction = ctx.attr_choice("direction", "forward", ("forward", "reverse", "bidirectional"))
    directions = ["forward", "reverse"] if direction == "bidirectional" else [direction]
    hidden = ctx.attr_int("hidden_size", ctx.shape(2)[-1] if ctx.has_input(2) else 0)
    if ctx.shape(1) != (len(directions), gates * hidden, shape[2]):
        raise ctx.error(
            f"W has shape {list(ctx.shape(1))}; {len(directions)} direction(s), hidden_size "
            f"{hidden} and input size {shape[2]} need {[len(directions), gates * hidden, shape[2]]}"
        )
    given = ctx.attr("activations") or []
    names = [(a.decode() if isinstance(a, bytes) else str(a)).lower() for a in given]  # type: ignore[union-attr]
    names = names or list(defaults) * len(directions)
    if len(names) != len(defaults) * len(directions):
        raise ctx.error(
            f"activations lists {len(names)} functions; {len(defaults)} per direction expected"
        )
    unknown = sorted(set(names) - set(_ACTIVATIONS))
    if unknown:
        raise ctx.error(
            f"unsupported activation {unknown[0]}; supported: {', '.join(sorted(_ACTIVATIONS))}"
        )
    alphas = [float(a) for a in ctx.attr("activation_alpha") or []]  # type: ignore[union-attr]
    betas = [float(b) for b in ctx.attr("activation_beta") or []]  # type: ignore[union-attr]
    # alpha/beta lists hold one entry per activation that takes one, in order.
    acts, ia, ib = [], 0, 0
    for name in names:
        a = b = None
        if name in ("affine", "leakyrelu", "thresholdedrelu", "scaledtanh", "hardsigmoid", "elu"):
            a = alphas[ia] if ia < len(alphas) else None
            ia += 1
        if name in ("affine", "scaledtanh", "hardsigmoid"):
            b = betas[ib] if ib < len(betas) else None
            ib += 1
        acts.append((name, a, b))
    return _Layer(ctx, hidden, seq, batch, directions, acts)


def _time_major(layer: _Layer) -> SSAValue:
    """X as [T, B, I]."""
    x = layer.ctx.tensor(0)
    if layer.ctx.opset >= 14 and layer.ctx.attr_int("layout", 0):
        x = layer.op(g.TransposeOp, x, perm=[1, 0, 2])
    return x


def _direction_slice(layer: _Layer, i: int, d: int) -> Value:
    """Input i's entry for direction d ([D, ...] -> [...])."""
    value = layer.ctx.value(i)
    if isinstance(value, np.ndarray):
        return value[d]
    shape = list(value.type.get_shape())  # type: ignore[attr-defined]
    starts, ends = [0] * len(shape), list(shape)
    starts[0], ends[0] = d, d + 1
    piece = layer.op(g.SliceOp, value, starts=starts, ends=ends, steps=[1] * len(shape))
    return layer.op(g.ReshapeOp, piece, shape=shape[1:])


def _transposed(layer: _Layer, value: Value) -> SSAValue:
    """A [G*H, K] weight as [K, G*H] (at import time when it is a constant)."""
    if isinstance(value, np.ndarray):
        return layer.const(np.ascontiguousarray(value.T), "weight_t")
    return layer.op(g.TransposeOp, value, perm=[1, 0])


def _as_value(layer: _Layer, value: Value, what: str) -> SSAValue:
    return layer.const(value, what) if isinstance(value, np.ndarray) else value  # type: ignore[arg-type]


def _state_input(layer: _Layer, i: int) -> Value:
    """Initial state input `i` as [D, B, H] (layout 1 gives it as [B, D, H])."""
    value = layer.ctx.value(i)
    if not (layer.ctx.opset >= 14 and layer.ctx.attr_int("layout", 0)):
        return value
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value.transpose(1, 0, 2))
    return layer.op(g.TransposeOp, value, perm=[1, 0, 2])


def _initial(layer: _Layer, i: int, d: int, what: str) -> SSAValue:
    """Direction d's initial state [B, H] from input `i` (zeros without it)."""
    b, h = layer.batch, layer.hidden
    if not layer.ctx.has_input(i):
        return layer.const(np.zeros((b, h)), f"{what}0")
    value = _state_input(layer, i)
    if isinstance(value, np.ndarray):
        return layer.const(value[d], what)
    piece = layer.op(g.SliceOp, value, starts=[d, 0, 0], ends=[d + 1, b, h], steps=[1, 1, 1])
    return layer.op(g.ReshapeOp, piece, shape=[b, h])


def _split_steps(layer: _Layer, value: SSAValue, width: int) -> list[SSAValue]:
    """[T, B, width] -> T values [B, width], from one split kernel of the [T*B, width] view
    (a split along the leading axis, so no per-step reshape copies)."""
    flat = layer.op(g.ReshapeOp, value, shape=[layer.seq * layer.batch, width])
    if layer.seq == 1:
        return [flat]
    return list(layer.ctx.make(g.SplitOp, flat, axis=0, sizes=[layer.batch] * layer.seq).results)


def _clip(layer: _Layer, x: SSAValue) -> SSAValue:
    if not layer.ctx.has_attr("clip"):
        return x
    bound = layer.ctx.attr_float("clip", 0.0)
    return layer.op(g.ClipOp, x, min=-bound, max=bound)


def _split_gates(layer: _Layer, x: SSAValue, count: int) -> list[SSAValue]:
    """[..., count*H] -> count gates [..., H], each a slice of the last axis: single-result
    ops that graph-fuse joins to the gate math reading them (a split's several results would
    end the kernel: an LSTM step would be 7 kernels, not 3)."""
    shape, h = list(x.type.get_shape()), layer.hidden  # type: ignore[attr-defined]
    starts, steps = [0] * len(shape), [1] * len(shape)
    return [layer.op(g.SliceOp, x, starts=[*starts[:-1], k * h], ends=[*shape[:-1], (k + 1) * h],
                     steps=steps) for k in range(count)]  # fmt: skip


def _sequence_mask(layer: _Layer) -> list[SSAValue] | None:
    """Per step, a [B, 1] mask of the sequences still running; None if all run to T."""
    if not layer.ctx.has_input(4):
        return None
    lens = layer.ctx.value(4)
    if isinstance(lens, np.ndarray) and np.all(lens.reshape(-1) >= layer.seq):
        return None
    lens_v = layer.ctx.tensor(4)
    masks = []
    for t in range(layer.seq):
        step = layer.ctx.materialize(np.array(t, np.dtype(layer.ctx.dtype(4))), f"step{t}")
        running = layer.op(g.LessOp, step, lens_v)
        masks.append(layer.op(g.ReshapeOp, running, shape=[layer.batch, 1]))
    return masks


Cell = Callable[[SSAValue, list[SSAValue]], list[SSAValue]]


def _summed_bias(layer: _Layer, d: int, gates: int) -> Value | None:
    """Wb + Rb of direction d ([G*H]): both go into the input projection."""
    if not layer.ctx.has_input(3):
        return None
    bias = layer.ctx.value(3)
    width = gates * layer.hidden
    if isinstance(bias, np.ndarray):
        return bias[d][:width] + bias[d][width:]
    halves = layer.ctx.make(
        g.SplitOp, _direction_slice(layer, 3, d), axis=0, sizes=[width] * 2
    ).results
    return layer.op(g.AddOp, halves[0], halves[1])


def _recur(
    layer: _Layer, d: int, gates: int, bias: Value | None, cell: Cell, states: list[SSAValue]
) -> tuple[list[SSAValue], list[SSAValue]]:
    """One direction: the input GEMM (x @ W^T + bias, every step at once), then `cell`
    unrolled over the steps; the outputs H_t (in time order) and the final states.
    `cell(xw_t, states)` does the step's hidden-state GEMM and gate math."""
    ctx = layer.ctx
    x = _time_major(layer)
    reverse = layer.directions[d] == "reverse"
    lens = ctx.tensor(4) if reverse and ctx.has_input(4) else None
    if lens is not None:
        x = layer.op(g.ReverseSequenceOp, x, lens, batch_axis=1, time_axis=0)
    flat = layer.op(g.ReshapeOp, x, shape=[layer.seq * layer.batch, ctx.shape(0)[2]])
    xw = layer.op(g.MatMulOp, flat, _transposed(layer, _direction_slice(layer, 1, d)))
    if bias is not None:
        xw = layer.op(g.AddOp, xw, _as_value(layer, bias, "bias"))
    xw = layer.op(g.ReshapeOp, xw, shape=[layer.seq, layer.batch, gates * layer.hidden])
    steps = _split_steps(layer, xw, gates * layer.hidden)
    masks = _sequence_mask(layer)
    order = range(layer.seq - 1, -1, -1) if reverse and lens is None else range(layer.seq)
    outputs: dict[int, SSAValue] = {}
    for t in order:
        new = cell(steps[t], states)
        if masks is not None:
            outputs[t] = layer.op(g.WhereOp, masks[t], new[0], layer.const(0.0, "zero"))
            new = [layer.op(g.WhereOp, masks[t], n, s) for n, s in zip(new, states)]
        else:
            outputs[t] = new[0]
        states = new
    hs = [outputs[t] for t in range(layer.seq)]
    if lens is not None:  # back to the input's time order, within each length
        back = layer.op(g.ReverseSequenceOp, _stack_steps(layer, hs), lens, batch_axis=1,
                        time_axis=0)  # fmt: skip
        hs = _split_steps(layer, back, layer.hidden)
    return hs, states


def _stack_steps(layer: _Layer, hs: list[SSAValue]) -> SSAValue:
    """T values [B, H] -> [T, B, H]: one concat along the leading axis, one reshape."""
    flat = hs[0] if len(hs) == 1 else layer.op(g.ConcatOp, hs, axis=0)
    return layer.op(g.ReshapeOp, flat, shape=[layer.seq, layer.batch, layer.hidden])


def _outputs(
    layer: _Layer, per_direction: list[tuple[list[SSAValue], list[SSAValue]]]
) -> list[Value]:
    """Y [T, D, B, H] (layout 1: [B, T, D, H]) and each final state [D, B, H] (layout 1:
    [B, D, H])."""
    ctx, b, h = layer.ctx, layer.batch, layer.hidden
    layout = ctx.opset >= 14 and ctx.attr_int("layout", 0)
    ys = [layer.op(g.ReshapeOp, _stack_steps(layer, hs), shape=[layer.seq, 1, b, h])
          for hs, _ in per_direction]  # fmt: skip
    y = ys[0] if len(ys) == 1 else layer.op(g.ConcatOp, ys, axis=1)
    if layout:
        y = layer.op(g.TransposeOp, y, perm=[2, 0, 1, 3])
    results: list[Value] = [y]
    for k in range(len(per_direction[0][1])):
        finals = [layer.op(g.ReshapeOp, states[k], shape=[1, b, h]) for _, states in per_direction]
        final = finals[0] if len(finals) == 1 else layer.op(g.ConcatOp, finals, axis=0)
        if layout:
            final = layer.op(g.TransposeOp, final, perm=[1, 0, 2])
        results.append(final)
    return results


# --------------------------------------------------------------------------------------------
# The cells
# --------------------------------------------------------------------------------------------


def _lstm_cell(layer: _Layer, d: int, x: SSAValue, states: list[SSAValue]) -> list[SSAValue]:
    _, c_prev = states  # H entered through x (the step's H @ R^T)
    f_act, g_act, h_act = (layer.activation(3 * d + k) for k in range(3))
    i, o, f, c = _split_gates(layer, x, 4)
    peep = _peepholes(layer, d)
    if peep is not None:
        i = layer.op(g.AddOp, i, layer.op(g.MulOp, peep[0], c_prev))
        f = layer.op(g.AddOp, f, layer.op(g.MulOp, peep[2], c_prev))
    i = f_act(_clip(layer, i))
    if layer.ctx.attr_int("input_forget", 0):
        f = layer.op(g.SubOp, layer.const(1.0, "one"), i)
    else:
        f = f_act(_clip(layer, f))
    c_new = layer.op(
        g.AddOp, layer.op(g.MulOp, f, c_prev), layer.op(g.MulOp, i, g_act(_clip(layer, c)))
    )
    if peep is not None:
        o = layer.op(g.AddOp, o, layer.op(g.MulOp, peep[1], c_new))
    o = f_act(_clip(layer, o))
    return [layer.op(g.MulOp, o, h_act(c_new)), c_new]


def _peepholes(layer: _Layer, d: int) -> list[SSAValue] | None:
    """P [D, 3H] as (p_i, p_o, p_f), each [H]; None without P."""
    if not layer.ctx.has_input(7):
        return None
    p = _direction_slice(layer, 7, d)
    if isinstance(p, np.ndarray):
        h = layer.hidden
        return [layer.const(p[k * h : (k + 1) * h], f"peephole{k}") for k in range(3)]
    return list(layer.ctx.make(g.SplitOp, p, axis=0, sizes=[layer.hidden] * 3).results)


def _gru_weights_split(layer: _Layer, d: int) -> tuple[SSAValue, SSAValue, SSAValue | None]:
    """R^T split for GRU: R_zr^T [H, 2H] and R_h^T [H, H], and the recurrence bias Rb_h."""
    r = _direction_slice(layer, 2, d)
    h = layer.hidden
    if isinstance(r, np.ndarray):
        zr = layer.const(np.ascontiguousarray(r[: 2 * h].T), "r_zr")
        rh = layer.const(np.ascontiguousarray(r[2 * h :].T), "r_h")
    else:
        parts = layer.ctx.make(g.SplitOp, r, axis=0, sizes=[2 * h, h]).results
        zr = layer.op(g.TransposeOp, parts[0], perm=[1, 0])
        rh = layer.op(g.TransposeOp, parts[1], perm=[1, 0])
    rb_h = None
    if layer.ctx.has_input(3):
        b = _direction_slice(layer, 3, d)
        rb_h = (layer.const(b[5 * h :], "rb_h") if isinstance(b, np.ndarray)
                else layer.ctx.make(g.SplitOp, b, axis=0, sizes=[5 * h, h]).results[1])  # fmt: skip
    return zr, rh, rb_h


def _gru_bias(layer: _Layer, d: int) -> Value | None:
    """Wb of all three gates plus Rb of z and r (Rb_h stays inside the h gate)."""
    if not layer.ctx.has_input(3):
        return None
    h = layer.hidden
    bias = layer.ctx.value(3)
    if isinstance(bias, np.ndarray):
        wb, rb = bias[d][: 3 * h], bias[d][3 * h :]
        return wb + np.concatenate([rb[: 2 * h], np.zeros(h, rb.dtype)])
    b = _as_value(layer, _direction_slice(layer, 3, d), "b")
    parts = layer.ctx.make(g.SplitOp, b, axis=0, sizes=[3 * h, 2 * h, h]).results
    rb_zr = layer.op(g.ConcatOp, [parts[1], layer.const(np.zeros(h), "zeros")], axis=0)
    return layer.op(g.AddOp, parts[0], rb_zr)


def _gru_cell(layer: _Layer, d: int) -> Cell:
    """GRU's step: the reset gate multiplies H (or its projection) before the h gate's
    GEMM, so a step does two GEMMs: H @ R_zr^T, then (r (.) H) @ R_h^T (or
    r (.) (H @ R_h^T + Rb_h) with linear_before_reset)."""
    r_zr, r_h, rb_h = _gru_weights_split(layer, d)
    f_act, g_act = layer.activation(2 * d), layer.activation(2 * d + 1)
    before_reset = layer.ctx.attr_int("linear_before_reset", 0)

    def cell(xw: SSAValue, states: list[SSAValue]) -> list[SSAValue]:
        (h_prev,) = states
        x_z, x_r, x_h = _split_gates(layer, xw, 3)
        h_z, h_r = _split_gates(layer, layer.op(g.MatMulOp, h_prev, r_zr), 2)
        z = f_act(_clip(layer, layer.op(g.AddOp, x_z, h_z)))
        r = f_act(_clip(layer, layer.op(g.AddOp, x_r, h_r)))
        if before_reset:
            hh = layer.op(g.MatMulOp, h_prev, r_h)
            if rb_h is not None:
                hh = layer.op(g.AddOp, hh, rb_h)
            hh = layer.op(g.MulOp, r, hh)
        else:
            hh = layer.op(g.MatMulOp, layer.op(g.MulOp, r, h_prev), r_h)
            if rb_h is not None:
                hh = layer.op(g.AddOp, hh, rb_h)
        candidate = g_act(_clip(layer, layer.op(g.AddOp, x_h, hh)))
        one_minus_z = layer.op(g.SubOp, layer.const(1.0, "one"), z)
        kept = layer.op(g.MulOp, z, h_prev)
        return [layer.op(g.AddOp, layer.op(g.MulOp, one_minus_z, candidate), kept)]

    return cell


def _with_recurrence(
    layer: _Layer,
    d: int,
    gate_math: Callable[[_Layer, int, SSAValue, list[SSAValue]], list[SSAValue]],
) -> Cell:
    """LSTM's and RNN's step: gates = H @ R^T + xw_t, then `gate_math`."""
    r_t = _transposed(layer, _direction_slice(layer, 2, d))

    def cell(xw: SSAValue, states: list[SSAValue]) -> list[SSAValue]:
        projected = layer.op(g.AddOp, layer.op(g.MatMulOp, states[0], r_t), xw)
        return gate_math(layer, d, projected, states)

    return cell


def _rnn_cell(layer: _Layer, d: int, x: SSAValue, states: list[SSAValue]) -> list[SSAValue]:
    return [layer.activation(d)(_clip(layer, x))]


@converter("LSTM")
def convert_lstm(ctx: NodeContext) -> list[Value]:
    layer = _layer(ctx, 4, ("sigmoid", "tanh", "tanh"))
    per = [
        _recur(layer, d, 4, _summed_bias(layer, d, 4), _with_recurrence(layer, d, _lstm_cell),
               [_initial(layer, 5, d, "h"), _initial(layer, 6, d, "c")])
        for d in range(len(layer.directions))
    ]  # fmt: skip
    return _outputs(layer, per)


@converter("GRU")
def convert_gru(ctx: NodeContext) -> list[Value]:
    layer = _layer(ctx, 3, ("sigmoid", "tanh"))
    per = [
        _recur(layer, d, 3, _gru_bias(layer, d), _gru_cell(layer, d), [_initial(layer, 5, d, "h")])
        for d in range(len(layer.directions))
    ]
    return _outputs(layer, per)


@converter("RNN")
def convert_rnn(ctx: NodeContext) -> list[Value]:
    layer = _layer(ctx, 1, ("tanh",))
    per = [
        _recur(layer, d, 1, _summed_bias(layer, d, 1), _with_recurrence(layer, d, _rnn_cell),
               [_initial(layer, 5, d, "h")])
        for d in range(len(layer.directions))
    ]  # fmt: skip
    return _outputs(layer, per)
