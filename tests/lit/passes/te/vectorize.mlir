// te-vectorize: append #te.vectorize<axis>. Here it completes a register-blocked matmul: the
// schedule already tiles C into 4 x 32 blocks (rows i0 and the two 16-column halves i1.i.o,
// both unrolled) with the reduction r0 outside the block. Without the mark, each of the 8
// copies of the block's column loop i1.i.i stays a scalar loop of 16 iterations. With it,
// loop-unroll + loop-vectorize turn each into one <16 x f32> step: a vector load of B, a
// broadcast of A, and a math.fma into the accumulator, C's vector at indices that do not
// depend on r0 (loaded and stored at the same place: LLVM keeps the 8 accumulators in
// registers across the r0 loop, as phis; tests/unit/test_te_schedule_passes.py checks that).
// RUN: minitvm-opt %s -p 'te-vectorize{kernel=matmul compute=0 axis="i1.i.i"}' | filecheck %s
// RUN: minitvm-opt %s -p 'convert-te-to-loop,loop-unroll,loop-vectorize' | filecheck %s --check-prefix=BEFORE
// RUN: minitvm-opt %s -p 'te-vectorize{kernel=matmul compute=0 axis=i1_i_i},convert-te-to-loop,loop-unroll,loop-vectorize' | filecheck %s --check-prefix=AFTER

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    te.compute {{.*}}#te.unroll<"i0">, #te.unroll<"i1.i.o">, #te.vectorize<"i1.i.i">]} : tensor<4x64xf32> {

// BEFORE-LABEL: func.func @matmul(
// BEFORE:         loop.for %{{.*}} = 0 to 8 step 1 {
// BEFORE-COUNT-8:   loop.for %{{.*}} = 0 to 16 step 1 {
// BEFORE-NOT:       vector<16xf32>

// AFTER-LABEL: func.func @matmul(
// AFTER-SAME:    %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x64xf32>, %[[C:.*]]: memref<4x64xf32>)
// AFTER:         loop.for %[[K:.*]] = 0 to 8 step 1 {
// AFTER:           %[[X:.*]] = loop.load %[[A]][%[[ROW:.*]], %[[K]]] : memref<4x8xf32> -> f32
// AFTER-NEXT:      %[[BV:.*]] = loop.vload %[[B]][%[[K]], %{{.*}}] : memref<8x64xf32> -> vector<16xf32>
// AFTER-NEXT:      %[[AV:.*]] = loop.broadcast %[[X]] : f32 -> vector<16xf32>
// AFTER:           %[[ACC:.*]] = loop.vload %[[C]][%[[ROW]], %[[COL:.*]]] : memref<4x64xf32> -> vector<16xf32>
// AFTER-NEXT:      %[[SUM:.*]] = math.fma %[[AV]], %[[BV]], %[[ACC]] : vector<16xf32>
// AFTER-NEXT:      loop.vstore %[[SUM]], %[[C]][%[[ROW]], %[[COL]]] : vector<16xf32>, memref<4x64xf32>
// AFTER-COUNT-7:   math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<16xf32>
// AFTER-NOT:       loop.for
// AFTER:         func.return
func.func @matmul(%A: tensor<4x8xf32>, %B: tensor<8x64xf32>) -> tensor<4x64xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [4, 64] sum (%k) in [8] {schedule = [#te.split<"i1", 32>, #te.split<"i1.i", 16>, #te.reorder<["i1.o", "r0", "i0", "i1.i.o", "i1.i.i"]>, #te.unroll<"i0">, #te.unroll<"i1.i.o">]} : tensor<4x64xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x64xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %c : tensor<4x64xf32>
}
