"""The model a `minitvm` subcommand is given and its inputs: loading the .onnx file, the
inputs it declares, the `--input` files checked against them, and the compile with the
command's options. A dimension the model leaves dynamic and neither `--input-shape` nor an
`--input` file fixes stays dynamic (one compile for every size; `--input-shape x=1x?` keeps
it so with a file too); a run gives it the file's size, else its smallest (`run_feeds`)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from minitvm.tools.options import CommandError

if TYPE_CHECKING:  # onnx, numpy and the compiler are slow to import: commands load them
    import numpy as np
    import onnx

    from minitvm.runtime import Executable

#: name -> (numpy dtype, dims; a dim that is not a known positive size is its symbolic name
#: or '?')
Declared = Mapping[str, "tuple[np.dtype | None, list[int | str]]"]
#: name -> the shape `--input-shape` (or a file) gives it: sizes, None (dynamic), "lo..hi"
Shapes = dict[str, "tuple[int | str | None, ...]"]


def load_onnx(path: str) -> onnx.ModelProto:
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(path)
    except OSError as e:
        raise CommandError(f"{e.filename or path}: {e.strerror}") from None
    except DecodeError:
        raise CommandError(f"{path} is not an ONNX model (it does not parse as one)") from None
    if not model.HasField("graph"):
        raise CommandError(f"{path} is not an ONNX model (it has no graph)")
    return model


def describe(shape: Sequence[object], dtype: object) -> str:
    return f"{dtype}[{', '.join(map(str, shape))}]"


def model_inputs(model: onnx.ModelProto) -> dict[str, tuple[np.dtype | None, list[int | str]]]:
    """The graph inputs that are not initializers: name -> (numpy dtype, dims; a dim that is
    not a known positive size is its symbolic name or '?')."""
    from onnx import helper

    initializers = {init.name for init in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        try:
            dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        except KeyError:
            dtype = None
        dims: list[int | str] = [
            d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
            for d in tensor.shape.dim
        ]
        inputs[value.name] = (dtype, dims)
    return inputs


def describe_inputs(declared: Declared) -> str:
    return "; ".join(f"{n}: {describe(dims, dtype)}" for n, (dtype, dims) in declared.items())


def read_inputs(
    given: Sequence[tuple[str, str]], declared: Declared, shapes: Shapes
) -> dict[str, np.ndarray]:
    """Load the `--input` files, checked against the model's inputs (`model_inputs`) before
    anything is compiled; add their shapes to `shapes` for inputs with dynamic dimensions."""
    import numpy as np

    arrays: dict[str, np.ndarray] = {}
    for name, path in given:
        if name not in declared:
            raise CommandError(
                f"--input {name}: the model has no input '{name}'; its inputs are "
                f"{describe_inputs(declared)}"
            )
        if name in arrays:
            raise CommandError(f"--input {name} is given twice")
        try:
            with open(path, "rb") as stream:
                if stream.read(6) != b"\x93NUMPY":
                    raise CommandError(
                        f"--input {name}: {path} is not a .npy file (no NumPy header)"
                    )
                stream.seek(0)
                array = np.load(stream, allow_pickle=False)
        except OSError as e:
            raise CommandError(f"--input {name}: {path}: {e.strerror or e}") from None
        except (ValueError, EOFError) as e:  # a damaged header, truncated data, object arrays
            raise CommandError(
                f"--input {name}: {path} is not a readable .npy file ({e})"
            ) from None
        dtype, dims = declared[name]
        wanted = shapes.get(name) or dims
        fits = len(array.shape) == len(wanted) and all(
            not isinstance(w, int) or w == a for w, a in zip(wanted, array.shape)
        )
        if not fits or (dtype is not None and array.dtype != dtype):
            raise CommandError(
                f"--input {name}: {path} holds {describe(array.shape, array.dtype)} but the "
                f"model expects {describe(wanted, dtype)}"
            )
        if name not in shapes and not all(isinstance(d, int) for d in dims):
            shapes[name] = tuple(array.shape)
        arrays[name] = array
    return arrays


def resolve_symbols(declared: Declared, shapes: Shapes) -> None:
    """Give the named dynamic dimensions (`batch`, `seq`) of every input the size an input of
    given shape has for them: `--input a=a.npy` fixes `n` in a: [n, 4] and b: [n, 4];
    `--input-shape ids=1x?` fixes `batch` in mask: [batch, seq] too (`seq` stays dynamic)."""
    sizes: dict[str, int] = {}
    for name, shape in shapes.items():
        for dim, size in zip(declared[name][1], shape):
            if isinstance(dim, str) and dim != "?" and isinstance(size, int):
                sizes.setdefault(dim, size)
    for name, (_, dims) in declared.items():
        if name in shapes or all(isinstance(d, int) for d in dims):
            continue
        # (the dimensions no input fixes stay dynamic: None)
        shape = tuple(d if isinstance(d, int) else sizes.get(d) for d in dims)
        if any(size is not None for size, d in zip(shape, dims) if not isinstance(d, int)):
            shapes[name] = shape


def compile_model(
    model: onnx.ModelProto, shapes: Shapes, args: argparse.Namespace, instrument: bool = False
) -> Executable:
    """Compile with the given input shapes (see `compile_shapes`) and the options of `args`
    (`instrument`: with clocks around the kernel calls, for `minitvm profile`)."""
    from minitvm.compiler import compile

    return compile(
        model,
        compile_shapes(model, shapes),
        opt_level=args.opt_level,
        records=args.records,
        num_threads=args.num_threads,
        winograd=args.winograd,
        instrument=instrument,
    )


def compile_shapes(model: onnx.ModelProto, shapes: Shapes) -> Shapes | None:
    """The input shapes to compile with: `shapes` (a named dimension takes its size from any
    input of given shape that has it); the dimensions they leave dynamic stay so."""
    declared = model_inputs(model)
    for name in shapes:
        if name not in declared:
            raise CommandError(
                f"--input-shape {name}: the model has no input '{name}'; its inputs are "
                f"{describe_inputs(declared)}"
            )
    shapes = dict(shapes)
    resolve_symbols(declared, shapes)
    return dict(shapes) or None


def run_feeds(
    exe: Executable, given: Mapping[str, np.ndarray], seed: int
) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The inputs of a run: the `given` arrays, and seeded random ones for the rest, of the
    sizes the given ones set for the dynamic dimensions, else each dimension's smallest
    (its bound's low end, or 1). The feeds, and the sizes chosen that way."""
    from minitvm.runtime import TensorSpec, random_arrays
    from minitvm.symbolic import bare_symbol, evaluate

    sizes: dict[str, int] = {}
    for spec in exe.inputs:
        if spec.name in given:
            for dim, size in zip(spec.shape, given[spec.name].shape):
                if (symbol := bare_symbol(dim)) is not None:
                    sizes.setdefault(symbol, size)
    chosen = {
        s: exe.bounds.get(s, (1, 1))[0]
        for s in exe.symbols
        if s not in sizes and s not in exe.set_sizes and s not in exe.capacities
    }
    sizes.update(chosen)
    missing = [s for s in exe.inputs if s.name not in given]
    concrete = [
        TensorSpec(s.name, tuple(evaluate(d, sizes) for d in s.shape), s.dtype) for s in missing
    ]
    return {**given, **random_arrays(concrete, seed)}, chosen
