"""minitvm's differential fuzzer (`minitvm fuzz`): random well-typed ONNX graphs from op
specs (spec.py and the families elementwise.py, nn.py, tensor.py, drawn by generate.py into
graph.py's builder), compiled at several opt levels and thread counts and checked against
ONNX Runtime (check.py) in a child process (sandbox.py); each failure is reduced by delta
debugging (reduce.py) and saved (store.py). campaign.py runs many and counts.

It sits above the compiler (it imports `minitvm.compile`) and below the `minitvm` CLI.
"""
