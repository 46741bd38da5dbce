"""Passes on the loop dialect: unrolling, vectorization, memory planning, parallel loops."""
