"""The Executable and GraphModule APIs: running, input checking, buffer reuse."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import minitvm
from minitvm.errors import MinitvmError
from minitvm.runtime.abi import ALIGNMENT
from minitvm.runtime.executable import (
    SMALL_OUTPUT_BYTES,
    aligned_copy,
    aligned_empty,
    data_address,
)


@pytest.fixture(scope="module")
def exe() -> minitvm.Executable:
    """y = relu(x @ W + b), z = x + 1 (two outputs, one float and one int input)."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((5, 3)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W"], ["xw"]),
            helper.make_node("Add", ["xw", "b"], ["pre"]),
            helper.make_node("Relu", ["pre"], ["y"]),
            helper.make_node("Add", ["n", "one"], ["z"]),
        ],
        "small",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5]),
            helper.make_tensor_value_info("n", TensorProto.INT64, [4]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("z", TensorProto.INT64, [4]),
        ],
        [
            onnx.numpy_helper.from_array(w, "W"),
            onnx.numpy_helper.from_array(np.arange(3, dtype=np.float32), "b"),
            onnx.numpy_helper.from_array(np.array(1, np.int64), "one"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    exe = minitvm.compile(model)
    exe.weights = w  # type: ignore[attr-defined]
    return exe


def test_metadata(exe: minitvm.Executable):
    assert exe.input_names == ["x", "n"]
    assert exe.input_shapes == {"x": (2, 5), "n": (4,)}
    assert exe.output_names == ["y", "z"]


def test_run_matches_numpy_and_reuses_nothing_between_outputs(exe: minitvm.Executable):
    x = np.random.default_rng(1).standard_normal((2, 5)).astype(np.float32)
    n = np.array([1, -2, 3, 40], np.int64)
    y1, z1 = exe.run({"x": x, "n": n})
    y2, _ = exe.run({"x": 2 * x, "n": n})
    expected = np.maximum(x @ exe.weights + np.arange(3, dtype=np.float32), 0)  # type: ignore[attr-defined]
    np.testing.assert_allclose(y1, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(z1, n + 1)
    assert y1 is not y2 and not np.shares_memory(y1, y2)  # each run returns fresh outputs


@pytest.mark.parametrize(
    "inputs, message",
    [
        ({"x": np.zeros((2, 5), np.float32)}, "missing input\\(s\\) n; the model expects x: float32\\[2, 5\\]; n: int64\\[4\\]"),
        ({"x": np.zeros((2, 5), np.float32), "n": np.zeros(4, np.int64), "q": 1}, "unknown input\\(s\\) q"),
        ({"x": np.zeros((5, 2), np.float32), "n": np.zeros(4, np.int64)}, "input 'x' is float32\\[5, 2\\] but the model expects x: float32\\[2, 5\\]"),
        ({"x": np.zeros((2, 5), np.float64), "n": np.zeros(4, np.int64)}, "input 'x' is float64\\[2, 5\\] but the model expects x: float32\\[2, 5\\]"),
    ],
)
def test_bad_inputs_are_clear_errors(exe: minitvm.Executable, inputs, message):
    with pytest.raises(MinitvmError, match=message):
        exe.run(inputs)


def test_graph_module_tvm_style(exe: minitvm.Executable):
    module = minitvm.GraphModule(exe)
    x = np.ones((2, 5), np.float32)
    module.set_input("x", x)
    module.set_input(n=np.arange(4, dtype=np.int64))
    module.run()
    assert module.get_num_outputs() == 2
    np.testing.assert_array_equal(module.get_output(1), np.arange(4) + 1)
    with pytest.raises(MinitvmError, match="output index 2 out of range"):
        module.get_output(2)
    with pytest.raises(MinitvmError, match="unknown input 'bogus'"):
        module.set_input("bogus", x)


def test_num_threads_is_validated():
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Relu", ["x"], ["y"])], "r",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    assert minitvm.compile(model, num_threads=2).num_threads == 2
    with pytest.raises(MinitvmError, match="num_threads must be >= 1"):
        minitvm.compile(model, num_threads=-1)


def test_constants_outputs_and_arena_are_cache_line_aligned(
    exe: minitvm.Executable, small_and_large: minitvm.Executable
):
    """A 64-byte vector access that straddles two cache lines costs twice: whatever numpy's
    allocator returns, the buffers the code writes (outputs included) start on a line."""
    for executable in (exe, small_and_large):
        inputs = {s.name: np.ones(s.shape, s.dtype) for s in executable.inputs}
        executable.run(inputs)
        written = [executable._io[slot] for slot, _ in executable._output_slots]
        assert written and all(address % ALIGNMENT == 0 for address in written)
        assert all(c.ctypes.data % ALIGNMENT == 0 for c in executable._constants)
        assert executable._arena.value % ALIGNMENT == 0


@pytest.fixture(scope="module")
def small_and_large() -> minitvm.Executable:
    """small = x * 2 (40 bytes), large = x + 1 broadcast to [64, 10] x 10 (25.6 KB): one output
    on each side of SMALL_OUTPUT_BYTES."""
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "two"], ["small"]),
            helper.make_node("Add", ["x", "zeros"], ["large"]),
        ],
        "small_and_large",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10])],
        [
            helper.make_tensor_value_info("small", TensorProto.FLOAT, [10]),
            helper.make_tensor_value_info("large", TensorProto.FLOAT, [64, 10, 10]),
        ],
        [
            onnx.numpy_helper.from_array(np.array(2, np.float32), "two"),
            onnx.numpy_helper.from_array(np.zeros((64, 10, 10), np.float32), "zeros"),
        ],
    )
    return minitvm.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


def test_small_and_large_outputs_are_fresh_arrays_each_run(small_and_large: minitvm.Executable):
    """A small output is written into a buffer the Executable keeps and copied out, a large
    one into a new array: either way a run's outputs are the caller's to keep."""
    slots = dict(small_and_large._output_slots)
    assert [slots[slot] is None for slot in sorted(slots)] == [False, True]
    assert 40 <= SMALL_OUTPUT_BYTES < 64 * 10 * 10 * 4
    x = np.arange(10, dtype=np.float32)
    small1, large1 = small_and_large.run({"x": x})
    x.flags.writeable = False  # a read-only input has no writable buffer to take the address of
    small2, large2 = small_and_large.run({"x": 3 * x})
    small3, _ = small_and_large.run({"x": x})
    np.testing.assert_array_equal(small1, 2 * x)
    np.testing.assert_array_equal(large1, np.broadcast_to(x, (64, 10, 10)))
    np.testing.assert_array_equal(small2, 6 * x)
    np.testing.assert_array_equal(large2, np.broadcast_to(3 * x, (64, 10, 10)))
    arrays = [small1, large1, small2, large2, small3]
    assert not any(np.shares_memory(a, b) for n, a in enumerate(arrays) for b in arrays[n + 1 :])
    assert all(a.flags.c_contiguous and a.flags.writeable for a in arrays)
    small1[...] = -1  # changing an output changes no later run's
    np.testing.assert_array_equal(small_and_large.run({"x": x})[0], 2 * x)


def test_data_address_of_any_array():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert data_address(array) == array.ctypes.data
    assert data_address(array[1]) == array.ctypes.data + 12
    array.flags.writeable = False
    assert data_address(array) == array.ctypes.data
    empty = np.empty((0, 3), np.float32)
    assert data_address(empty) == empty.ctypes.data


@pytest.mark.parametrize("offset", [0, 4, 16, 60])
def test_aligned_copy_keeps_values_shape_and_dtype(offset: int):
    storage = np.empty(4 * 7 * 3 + 2 * ALIGNMENT, np.uint8)
    start = (-storage.ctypes.data) % ALIGNMENT + offset
    array = storage[start : start + 4 * 21].view(np.float32).reshape(7, 3)
    array[...] = np.arange(21, dtype=np.float32).reshape(7, 3)
    copy = aligned_copy(array)
    assert copy.ctypes.data % ALIGNMENT == 0 and copy.flags.c_contiguous
    assert copy.dtype == array.dtype and copy.shape == array.shape
    np.testing.assert_array_equal(copy, array)
    assert (copy is array) == (offset == 0)
    assert aligned_empty((0, 3), np.float32).shape == (0, 3)


def test_the_abi_and_the_runtime_import_no_compiler():
    """runtime/abi.py is the contract the lowering and the runtime share: loading it, or the
    runtime, must not pull in xDSL or the compiler (a deployed model needs neither)."""
    script = (
        "import sys, minitvm.runtime.abi, minitvm.runtime.executable, minitvm.runtime.thread_pool\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'xdsl'"
        " or m.startswith(('minitvm.lowering', 'minitvm.dialects', 'minitvm.compiler'))))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "[]\n"


def test_a_tensor_larger_than_the_memory_is_a_clear_error() -> None:
    """2^40 floats: refused when the Executable is made, not by numpy's MemoryError mid-run."""
    from minitvm.runtime.executable import TensorSpec, check_fits_in_memory, physical_memory

    side = 1 << 20
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "huge",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [side, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [side, side])],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    if physical_memory() is None or physical_memory() >= 4 << 40:
        pytest.skip("this machine could hold it")
    # the frontend refuses it first (tests/unit/test_hostile_inputs.py has the other places)
    with pytest.raises(MinitvmError, match=r"input 'x' of shape \(1048576, 1048576\) would take 4.00 TiB, more than"):
        minitvm.compile(model, num_threads=1)
    # and so does the runtime, for an Executable or a library made some other way
    with pytest.raises(MinitvmError, match=r"x: float32\[1048576, 1048576\] would take 4.00 TiB, more than"):
        check_fits_in_memory([TensorSpec("x", (side, side), np.dtype(np.float32))], 0)
