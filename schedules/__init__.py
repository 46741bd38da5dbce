"""Schedules: HOW each te kernel runs, as templates with knobs.

A layer of its own between the dialects and the passes: te-default-schedule and
te-apply-records (passes/te/), the compiler and the tuner all use it, and it imports only the
dialects. One module per template class (gemm.py, conv.py, pool.py, transpose.py,
reduction.py, injective.py; base.py is what they share), templates.py picks the template for
a compute, fused.py is the default schedule of a fused kernel, and kernel.py sees a kernel's
schedule as one config: its default, its task key, a config applied.
"""
