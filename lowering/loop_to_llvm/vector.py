"""The loop dialect's lane-wise ops -> llvm dialect (part of convert-loop-to-llvm).

loop-vectorize emits these where xDSL's arith ops verify scalar masks only; each is one llvm
op or intrinsic on vectors:

    loop.vcmpf "olt", %a, %b : vector<16xf32> -> vector<16xi1>   ->  llvm.fcmp "olt" %a, %b
    loop.vcmpi "slt", %a, %b : vector<8xi32> -> vector<8xi1>     ->  llvm.icmp "slt" %a, %b
    loop.vselect %m, %a, %b : vector<16xi1>, vector<16xf32>      ->  llvm.select %m, %a, %b
    loop.vcast "sitofp" %v : vector<8xi32> -> vector<8xf32>      ->  llvm.sitofp %v
    loop.vreduce "addf" %s, %v : vector<16xf32> -> f32           ->  llvm.vector.reduce.fadd(%s, %v)
    loop.vreduce "maximumf" %s, %v : ...    ->  llvm.maximum(%s, llvm.vector.reduce.fmaximum(%v))
    loop.vshuffle %a, %b [0, 16, ...] : vector<16xf32> -> vector<16xf32>
                                            ->  llvm.shufflevector %a, %b [0, 16, ...]

`addf`/`mulf` use LLVM's ordered reductions (start value first, then lane 0, 1, ...: exactly the
scalar loop's order); the other kinds are associative and commutative, so a reduction of the
lanes combined once with the start value is the same result.
They register in `scalar.LOWERINGS`, so `FunctionLowering` dispatches them like arith ops.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import llvm
from xdsl.ir import Operation, SSAValue

from minitvm.dialects import loop
from minitvm.dialects.llvm_ext import FCmpOp, FPToSIOp, FPToUIOp, SelectOp, UIToFPOp
from minitvm.lowering.loop_to_llvm.emitter import Emitter, element_of, llvm_type
from minitvm.lowering.loop_to_llvm.scalar import icmp_predicate, lowering


@lowering(loop.VectorCmpfOp)
def _vcmpf(em: Emitter, op: loop.VectorCmpfOp, args: list[SSAValue]) -> SSAValue:
    predicate = op.predicate.data
    if predicate in ("false", "true"):
        return em.const(predicate == "true", llvm_type(op.result.type))
    return em.value(FCmpOp(args[0], args[1], predicate))


@lowering(loop.VectorCmpiOp)
def _vcmpi(em: Emitter, op: loop.VectorCmpiOp, args: list[SSAValue]) -> SSAValue:
    return em.value(llvm.ICmpOp(args[0], args[1], icmp_predicate(op.predicate.data)))


@lowering(loop.VectorSelectOp)
def _vselect(em: Emitter, op: loop.VectorSelectOp, args: list[SSAValue]) -> SSAValue:
    return em.value(SelectOp(*args))


@lowering(loop.VectorShuffleOp)
def _vshuffle(em: Emitter, op: loop.VectorShuffleOp, args: list[SSAValue]) -> SSAValue:
    return em.value(
        llvm.ShuffleVectorOp.build(
            operands=args,
            properties={"mask": op.mask},
            result_types=[llvm_type(op.result.type)],
        )
    )


_CASTS: dict[str, Callable[[SSAValue, object], Operation]] = {
    "sitofp": llvm.SIToFPOp,
    "uitofp": UIToFPOp,
    "fptosi": FPToSIOp,
    "fptoui": FPToUIOp,
    "extsi": llvm.SExtOp,
    "extui": llvm.ZExtOp,
    "trunci": llvm.TruncOp,
}


@lowering(loop.VectorCastOp)
def _vcast(em: Emitter, op: loop.VectorCastOp, args: list[SSAValue]) -> SSAValue:
    return em.value(_CASTS[op.kind.data](args[0], llvm_type(op.result.type)))


#: kind -> (llvm.vector.reduce.<name>, the scalar combine as an intrinsic or llvm op).
_REDUCTIONS: dict[str, tuple[str, str | type[Operation]]] = {
    "maximumf": ("fmaximum", "maximum"),
    "minimumf": ("fminimum", "minimum"),
    "maxnumf": ("fmax", "maxnum"),
    "minnumf": ("fmin", "minnum"),
    "addi": ("add", llvm.AddOp),
    "muli": ("mul", llvm.MulOp),
    "andi": ("and", llvm.AndOp),
    "ori": ("or", llvm.OrOp),
    "xori": ("xor", llvm.XOrOp),
    "maxsi": ("smax", "smax"),
    "minsi": ("smin", "smin"),
    "maxui": ("umax", "umax"),
    "minui": ("umin", "umin"),
}


@lowering(loop.VectorReduceOp)
def _vreduce(em: Emitter, op: loop.VectorReduceOp, args: list[SSAValue]) -> SSAValue:
    init, vector = args
    kind = op.kind.data
    if kind == "addf":
        return em.value(llvm.VectorReduceFAddOp(init, vector))
    if kind == "mulf":
        return em.value(llvm.VectorReduceFMulOp(init, vector))
    reduce, combine = _REDUCTIONS[kind]
    element = element_of(vector.type)
    lanes = em.intrinsic(f"vector.reduce.{reduce}", [vector], element, [vector.type])
    assert lanes is not None
    if isinstance(combine, str):
        result = em.intrinsic(combine, [init, lanes], element)
        assert result is not None
        return result
    return em.value(combine(init, lanes))
