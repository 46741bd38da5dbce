// te-reorder: append #te.reorder<[...]>. The matmul's default order is i-k-j (loops i0, r0,
// i1: B is read along j); moving the reduction innermost makes convert-te-to-loop carry the
// accumulator in a register (iter_args) and store each element of C once.
// RUN: minitvm-opt %s -p 'te-reorder{kernel=matmul compute=0 order=i0,i1,r0}' | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s --check-prefix=BEFORE
// RUN: minitvm-opt %s -p 'te-reorder{kernel=matmul compute=0 order=i0,i1,r0},convert-te-to-loop' | filecheck %s --check-prefix=AFTER
// RUN: not minitvm-opt %s -p 'te-reorder{kernel=matmul compute=0 order=i0,k}' 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}) in [8, 32] sum (%{{.*}}) in [16] {schedule = [#te.reorder<["i0", "i1", "r0"]>]} : tensor<8x32xf32> {

// BEFORE-LABEL: func.func @matmul(
// BEFORE:             loop.store %{{.*}}, %{{.*}} : f32, memref<8x32xf32>
// BEFORE:           loop.for %{{.*}} = 0 to 16 step 1 {
// BEFORE-NEXT:        loop.for %{{.*}} = 0 to 32 step 1 {

// AFTER-LABEL: func.func @matmul(
// AFTER-SAME:    %[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x32xf32>, %[[C:.*]]: memref<8x32xf32>)
// AFTER-NEXT:    loop.for %[[I:.*]] = 0 to 8 step 1 {
// AFTER-NEXT:      loop.for %[[J:.*]] = 0 to 32 step 1 {
// AFTER-NEXT:        %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// AFTER-NEXT:        %[[SUM:.*]] = loop.for %[[K:.*]] = 0 to 16 step 1 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// AFTER-NEXT:          %[[X:.*]] = loop.load %[[A]][%[[I]], %[[K]]] : memref<8x16xf32> -> f32
// AFTER-NEXT:          %[[Y:.*]] = loop.load %[[B]][%[[K]], %[[J]]] : memref<16x32xf32> -> f32
// AFTER-NEXT:          %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// AFTER-NEXT:          %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// AFTER-NEXT:          loop.yield %[[S]] : f32
// AFTER-NEXT:        }
// AFTER-NEXT:        loop.store %[[SUM]], %[[C]][%[[I]], %[[J]]] : f32, memref<8x32xf32>
// AFTER-NEXT:      }
// AFTER-NEXT:    } {parallel}

// ERR: error: @matmul compute 0: schedule: no loop named 'k' (loops: i0, r0, i1)
func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>) -> tensor<8x32xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [8, 32] sum (%k) in [16] : tensor<8x32xf32> {
    %a = te.read %A[%i, %k] : tensor<8x16xf32>
    %b = te.read %B[%k, %j] : tensor<16x32xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %c : tensor<8x32xf32>
}
