"""dialects/te_cost.py: a te kernel's flops (as it runs, inlining applied) and its bytes."""

from __future__ import annotations

from test_schedule_templates import conv_model

from minitvm.bench.models import matmul
from minitvm.compiler import lower_to_te
from minitvm.dialects.te_cost import kernel_cost
from minitvm.frontend import from_onnx
from minitvm.schedules.kernel import kernel_template, kernels


def _kernels(model) -> dict[str, object]:
    module = from_onnx(model)
    lower_to_te(module, num_threads=1, winograd="never")  # the direct conv's costs
    return {
        (found[1].name if (found := kernel_template(k)) else k.sym_name.data): k
        for k in kernels(module)
    }


def test_a_gemm_is_2mnk_flops_over_its_operands_and_result() -> None:
    (gemm,) = _kernels(matmul(64, 32, 16)).values()
    cost = kernel_cost(gemm)  # type: ignore[arg-type]
    assert cost.flops == 2 * 64 * 32 * 16
    assert cost.bytes == 4 * (64 * 32 + 32 * 16 + 64 * 16)
    assert cost.intensity == cost.flops / cost.bytes


def test_a_fused_conv_counts_its_macs_and_its_epilogue() -> None:
    conv = _kernels(conv_model())["conv_nchwc"]
    kernel = conv.clone()  # type: ignore[attr-defined]
    cost = kernel_cost(kernel)
    (out,) = kernel.function_type.outputs.data
    outputs = 1
    for d in out.get_shape():
        outputs *= d
    weight = max(kernel.function_type.inputs.data, key=lambda t: len(t.get_shape()))
    _, co, kh, kw, ci, _ = weight.get_shape()  # [C/16, C/16, KH, KW, 16, 16]
    macs = outputs * co * kh * kw * ci
    # a multiply and an add per MAC, the relu once per output; the zero padding is free
    assert cost.flops == 2 * macs + outputs
    assert cost.bytes == 4 * sum(
        _numel(t) for t in [*kernel.function_type.inputs.data, out]
    )
    assert str(kernel) == str(conv)  # the kernel itself is not inlined


def _numel(type_) -> int:
    n = 1
    for d in type_.get_shape():
        n *= d
    return n
