// te-prefetch: append #te.prefetch<ahead, over>; convert-te-to-loop then issues, at each step
// of the innermost loop that is neither unrolled nor vectorized (r0), a loop.prefetch of the
// line of B that the next column strip (i1.o + 1) reads there, vector i0.o % 2 of it.
// RUN: minitvm-opt %s -p 'te-prefetch{kernel=gemm compute=0 ahead=i1_o over=i0_o}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-prefetch{kernel=gemm compute=0 ahead=i1_o over=i0_o},convert-te-to-loop,cse' | filecheck %s --check-prefix=LOOPS

// CHECK-LABEL: func.func @gemm(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}) in [12, 64] sum (%{{.*}}) in [8] {schedule = [{{.*}}, #te.vectorize<"i1.i.i">, #te.prefetch<"i1.o", "i0.o">]} : tensor<12x64xf32> {

// LOOPS-LABEL: func.func @gemm(
// LOOPS:         loop.for %[[J:\w+]] = 0 to 2 step 1 {
// LOOPS-NEXT:      loop.for %[[I:\w+]] = 0 to 2 step 1 {
// LOOPS:             loop.for %[[K:\w+]] = 0 to 8 step 1 {
// LOOPS:               %[[VECTOR:\d+]] = arith.remui %[[I]], %{{\d+}} : index
// LOOPS:               loop.prefetch %1[%{{\d+}}, %[[K]], %{{\d+}}] : memref<4x8x16xf32>
// LOOPS-NEXT:          loop.for %{{\w+}} = 0 to 6 step 1 {
func.func @gemm(%A: tensor<12x8xf32>, %B: tensor<4x8x16xf32>) -> tensor<12x64xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [12, 64] sum (%k) in [8] {schedule = [#te.split<"i0", 6>, #te.split<"i1", 32>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "i0.o", "r0", "i0.i", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0.i">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<12x64xf32> {
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
