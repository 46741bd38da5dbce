// convert-te-to-loop, #te.prefetch<"i1.o", "i0.o">: at each step of the innermost loop that
// is neither unrolled nor vectorized (r0), a loop.prefetch of what the reads that depend on
// i1.o (B's, not A's) touch at the next i1.o. B's read is unrolled over two vectors
// (i1.i.o): block of rows i0.o asks for vector i0.o % 2 of the next strip, its lanes
// (i1.i.i) at 0. The panel index `j / 16` is resolved as for the loads (2 x i1.o + vector,
// + 2 for the next strip of 32 columns). Nothing is prefetched for A's read or C.
// RUN: minitvm-opt %s -p convert-te-to-loop,cse | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop,cse | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @gemm(
// CHECK:         loop.for %[[J:\w+]] = 0 to 1 step 1 {
// CHECK-NEXT:      loop.for %[[I:\w+]] = 0 to 2 step 1 {
// CHECK:             loop.for %[[K:\w+]] = 0 to 8 step 1 {
// CHECK-NEXT:          %[[ZERO:\d+]] = arith.constant 0 : index
// CHECK-NEXT:          %[[TWO:\d+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[VECTOR:\d+]] = arith.remui %[[I]], %[[TWO]] : index
// CHECK:               %[[PANEL:\d+]] = arith.muli %[[J]], %[[TWO]] : index
// CHECK-NEXT:          %[[THIS:\d+]] = arith.addi %[[PANEL]], %[[VECTOR]] : index
// CHECK-NEXT:          %[[NEXT:\d+]] = arith.addi %[[THIS]], %[[TWO]] : index
// CHECK-NEXT:          loop.prefetch %1[%[[NEXT]], %[[K]], %[[ZERO]]] : memref<2x8x16xf32>
// CHECK-NEXT:          loop.for %{{\w+}} = 0 to 6 step 1 {
// CHECK-NOT:         loop.prefetch
// CHECK:           func.return
func.func @gemm(%A: tensor<12x8xf32>, %B: tensor<2x8x16xf32>) -> tensor<12x32xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [12, 32] sum (%k) in [8] {schedule = [#te.split<"i0", 6>, #te.split<"i1", 32>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">, #te.prefetch<"i1.o", "i0.o">]} : tensor<12x32xf32> {
    %a = te.read %A[%i, %k] : tensor<12x8xf32>
    %c16 = arith.constant 16 : index
    %p = arith.floordivsi %j, %c16 : index
    %l = arith.remsi %j, %c16 : index
    %b = te.read %B[%p, %k, %l] : tensor<2x8x16xf32>
    %m = arith.mulf %a, %b : f32
    te.yield %m : f32
  }
  func.return %c : tensor<12x32xf32>
}

// Two blocks of rows for a strip of four vectors: each block asks for two of them, the
// vectors i0.o % 4 and (i0.o + 2) % 4, so that every vector of the next strip is prefetched.
// CHECK-LABEL: func.func @gemm_few_blocks(
// CHECK:         loop.for %[[I:\w+]] = 0 to 2 step 1 {
// CHECK:           loop.for %[[K:\w+]] = 0 to 8 step 1 {
// CHECK:               %[[FOUR:\d+]] = arith.constant 4 : index
// CHECK-NEXT:          %[[FIRST:\d+]] = arith.remui %[[I]], %[[FOUR]] : index
// CHECK:               loop.prefetch %1[%{{\d+}}, %[[K]], %{{\d+}}] : memref<4x8x16xf32>
// CHECK:               %[[TWO:\d+]] = arith.constant 2 : index
// CHECK-NEXT:          %[[SHIFTED:\d+]] = arith.addi %[[I]], %[[TWO]] : index
// CHECK-NEXT:          %[[SECOND:\d+]] = arith.remui %[[SHIFTED]], %[[FOUR]] : index
// CHECK:               loop.prefetch %1[%{{\d+}}, %[[K]], %{{\d+}}] : memref<4x8x16xf32>
// CHECK-NEXT:          loop.for %{{\w+}} = 0 to 6 step 1 {
// CHECK-NOT:         loop.prefetch
// CHECK:           func.return
func.func @gemm_few_blocks(%A: tensor<12x8xf32>, %B: tensor<4x8x16xf32>) -> tensor<12x64xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [12, 64] sum (%k) in [8] {schedule = [#te.split<"i0", 6>, #te.split<"i1", 64>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">, #te.prefetch<"i1.o", "i0.o">]} : tensor<12x64xf32> {
    %a = te.read %A[%i, %k] : tensor<12x8xf32>
    %c16 = arith.constant 16 : index
    %p = arith.floordivsi %j, %c16 : index
    %l = arith.remsi %j, %c16 : index
    %b = te.read %B[%p, %k, %l] : tensor<4x8x16xf32>
    %m = arith.mulf %a, %b : f32
    te.yield %m : f32
  }
  func.return %c : tensor<12x64xf32>
}
