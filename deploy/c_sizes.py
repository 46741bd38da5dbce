"""The C a library of a model with sizes known only at run time needs (part of
model_data.c): the functions of c/model_data.h that bind the sizes from the inputs' shapes
and check them, and compute the arena's and the outputs' sizes from them.

The code is what the Executable does in Python (`bind_symbols`, `symbolic.evaluator`), in
the same order and with the same messages, so that a library refuses what `Executable.run`
refuses. Sizes are in the entry's order (`loop.symbols`): the array the entry takes as its
fourth argument. Expressions become straight-line C (`symbolic.straight_line`) over int64_t
with floor division and modulo (C's `/` and `%` truncate toward zero; a size may be negative
inside an expression: `floordiv(h - 3, 2)` of a small h).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from minitvm.errors import MinitvmError
from minitvm.runtime.executable import TensorSpec, outside_bound
from minitvm.symbolic import SYMBOL_RANGE, SymDim, bare_symbol, capacity, straight_line

#: Helpers every generated expression may call (inline: a model that calls none of them
#: compiles without unused-function warnings).
PRELUDE = """\
static inline int64_t fdiv(int64_t a, int64_t b) {
  int64_t q = a / b, r = a % b;
  return (r != 0 && ((r ^ b) < 0)) ? q - 1 : q;
}
static inline int64_t fmod_(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r ^ b) < 0)) ? r + b : r;
}
static inline int64_t max2(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t min2(int64_t a, int64_t b) { return a < b ? a : b; }
"""


def _call(fn: str, args: list[str]) -> str:
    if fn == "floordiv":
        return f"fdiv({args[0]}, {args[1]})"
    if fn == "mod":
        return f"fmod_({args[0]}, {args[1]})"
    if fn in ("max", "min"):
        text = args[0]
        for arg in args[1:]:
            text = f"{fn}2({text}, {arg})"
        return text
    raise MinitvmError(f"cannot write the size function '{fn}' as C")


def c_expression(value: int | SymDim, symbols: Sequence[str], indent: str = "  ") -> tuple[str, str]:
    """`value` over the sizes array `s` (in `symbols`' order): the C statements that compute
    its parts (each in a block-local `v<n>`) and the expression of the result."""
    if not isinstance(value, SymDim):
        return "", f"INT64_C({int(value)})"
    index = {name: n for n, name in enumerate(symbols)}

    def symbol(name: str) -> str:
        if name not in index:
            raise MinitvmError(f"size '{name}' is none of the model's ({', '.join(symbols)})")
        return f"s[{index[name]}]"

    lines, result = straight_line(value, symbol, _call)
    body = "".join(f"{indent}const int64_t {name} = {text};\n" for name, text in lines)
    return body, f"({result})"


def _c_literal(text: str) -> str:
    """`text` as a C string literal."""
    from minitvm.deploy.library import c_string

    return c_string(text)


def _c_format(*pieces: str) -> str:
    """A printf format inside a C string literal: the pieces at even positions are text (a
    `%` in a name doubled, so that it prints as itself), those at odd ones conversions
    (`%lld`) kept as they are."""
    return "".join(
        _c_literal(piece.replace("%", "%%") if k % 2 == 0 else piece)[1:-1]
        for k, piece in enumerate(pieces)
    )


def bind_sizes_function(
    symbols: Sequence[str],
    inputs: Sequence[TensorSpec],
    bounds: Mapping[str, tuple[int, int]],
    not_from_inputs: Collection[str] = (),
    sources: Mapping[str, str] | None = None,
) -> str:
    """`minitvm__bind_sizes`: each size from the first input dimension that is just it,
    within its bound, then every other symbolic input dimension equal to its expression.
    `not_from_inputs`: the sizes the code finds as it runs and their capacities, which the
    run loop sets. `sources`: the node that needs a bound, which a refusal names."""
    lines = [
        "int minitvm__bind_sizes(const int64_t *const *shapes, int64_t *s, char *why, size_t room) {",
        "  (void)shapes; (void)s; (void)why; (void)room; /* (a model whose sizes are all found) */",
    ]
    origin: dict[str, tuple[int, int]] = {}
    for i, spec in enumerate(inputs):
        for axis, dim in enumerate(spec.shape):
            name = bare_symbol(dim)
            if name is None or name in origin:
                continue
            if name not in symbols:
                raise MinitvmError(f"input '{spec.name}' names size '{name}', which the code does not take")
            origin[name] = (i, axis)
            lo, hi = bounds.get(name, (1, SYMBOL_RANGE[1]))
            lo = max(lo, 1)
            n = symbols.index(name)
            message = _c_format(
                f"input '{spec.name}' dimension {axis} ('{name}') is ",
                "%lld",
                f", {outside_bound(lo, hi, (sources or {}).get(name))}",
            )
            lines += [
                f"  s[{n}] = shapes[{i}][{axis}];",
                f"  if (s[{n}] < {lo} || s[{n}] > {hi}) {{",
                f'    snprintf(why, room, "{message}", (long long)s[{n}]);',
                "    return 1;",
                "  }",
            ]
    missing = [name for name in symbols if name not in origin and name not in not_from_inputs]
    if missing:
        raise MinitvmError(
            f"the sizes {', '.join(missing)} are no input's dimension, so no run could tell them"
        )
    for i, spec in enumerate(inputs):
        for axis, dim in enumerate(spec.shape):
            if not isinstance(dim, SymDim) or origin.get(bare_symbol(dim) or "") == (i, axis):
                continue
            body, value = c_expression(dim, symbols, indent="    ")
            message = _c_format(
                f"input '{spec.name}' dimension {axis} is ", "%lld", f", but the model says {dim} = ", "%lld", " there"
            )
            lines += [
                "  {",
                body.rstrip("\n"),
                f"    const int64_t want = {value};",
                f"    if (shapes[{i}][{axis}] != want) {{",
                f'      snprintf(why, room, "{message}", (long long)shapes[{i}][{axis}], (long long)want);',
                "      return 1;",
                "    }",
                "  }",
            ]
    lines += ["  return 0;", "}"]
    return "\n".join(line for line in lines if line)


def arena_bytes_function(symbols: Sequence[str], arena_size: int, arena_size_expr: int | SymDim) -> str:
    """`minitvm__arena_bytes`: the arena's end at these sizes (at least its static part)."""
    body, value = c_expression(arena_size_expr, symbols)
    return (
        "int64_t minitvm__arena_bytes(const int64_t *s) {\n"
        f"{body}  return max2({value}, INT64_C({arena_size}));\n"
        "}"
    )


def output_shape_function(symbols: Sequence[str], outputs: Sequence[TensorSpec]) -> str:
    """`minitvm__output_shape`: output `i`'s dimensions at these sizes."""
    cases = []
    for i, spec in enumerate(outputs):
        statements = []
        for axis, dim in enumerate(spec.shape):
            body, value = c_expression(dim, symbols, indent="    ")
            statements.append("  {\n" + body + f"    shape[{axis}] = {value};\n  }}")
        cases.append(f"  case {i}:\n" + "\n".join(statements) + "\n    return;")
    return (
        "void minitvm__output_shape(int i, const int64_t *s, int64_t *shape) {\n"
        "  (void)s; (void)shape;\n"
        "  switch (i) {\n" + "\n".join(cases) + "\n  }\n}"
    )


def found_sizes_section(
    symbols: Sequence[str],
    found: Mapping[str, int | SymDim],
    checks: Mapping[str, str],
    groups: Mapping[str, str],
    initial_capacity: int,
    group_initial_capacity: int,
) -> str:
    """The table of sizes the code finds as it runs (`minitvm__found`: each one's place in
    the sizes array, its capacity's place or -1, its check's message or NULL, its group (the
    position in this table of the group's first size) or -1) and `minitvm__found_bound`, each
    one's bound at given sizes: what `Executable.run` keeps in `set_sizes`, `capacities`,
    `checks` and `groups`, for runtime.c's run loop."""
    index = {name: n for n, name in enumerate(symbols)}
    first: dict[str, int] = {}
    rows, cases = [], []
    for k, (name, bound) in enumerate(found.items()):
        cap = index.get(capacity(name), -1)
        check = checks.get(name)
        message = "0" if check is None else _c_literal(check)
        group = first.setdefault(groups[name], k) if name in groups else -1
        rows.append(f"    {{{index[name]}, {cap}, {message}, {group}}},")
        body, value = c_expression(bound, symbols, indent="    ")
        cases.append(f"  case {k}: {{\n{body}    return {value};\n  }}")
    return "\n".join([
        f"const int minitvm__num_found = {len(found)};",
        f"const int64_t minitvm__initial_capacity = {initial_capacity};",
        f"const int64_t minitvm__group_initial_capacity = {group_initial_capacity};",
        "const minitvm__found_size minitvm__found[] = {\n" + ("\n".join(rows) or "    {0, 0, 0, -1},") + "\n};",
        "int64_t minitvm__found_bound(int k, const int64_t *s) {",
        "  (void)s;",
        "  switch (k) {",
        *cases,
        "  }",
        "  return 0;",
        "}",
    ])  # fmt: skip
