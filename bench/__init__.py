"""Benchmarks: `minitvm bench` (suite.py: minitvm vs ONNX Runtime vs numpy, one table), the
models they run (models.py, shared with the end-to-end tests), and standalone scripts that
each measure one thing (`python bench/gemm.py`, fusion.py, parallel.py, ...).

Benchmarks print ratios measured side by side, interleaved, medians of several runs; they are
measurements, never pass/fail tests."""
