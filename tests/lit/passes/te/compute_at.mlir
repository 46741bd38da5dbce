// te-compute-at: append #te.compute_at<target, axis> to an epilogue: its loops then run inside
// the target's loop `axis`, right after the target's own loops there, instead of in a nest of
// their own after the target's. Each row of C is relu'd while it is in cache (and, being
// pointwise, in C's buffer: the epilogue needs no scratch).
// RUN: minitvm-opt %s -p 'te-compute-at{kernel=matmul_relu compute=1 target=mm axis=i0}' | filecheck %s
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s --check-prefix=BEFORE
// RUN: minitvm-opt %s -p 'te-compute-at{kernel=matmul_relu compute=1 target=mm axis=i0},convert-te-to-loop' | filecheck %s --check-prefix=AFTER
// RUN: not minitvm-opt %s -p 'te-compute-at{kernel=matmul_relu compute=1 target=mm axis=r0}' 2>&1 | filecheck %s --check-prefix=ERR-AXIS
// RUN: not minitvm-opt %s -p 'te-compute-at{kernel=matmul_relu compute=1 target=conv axis=i0}' 2>&1 | filecheck %s --check-prefix=ERR-TARGET

// CHECK-LABEL: func.func @matmul_relu(
// CHECK:         te.compute (%{{.*}}, %{{.*}}) in [4, 16] {schedule = [#te.compute_at<"mm", "i0">]} : tensor<4x16xf32> {

// BEFORE-LABEL: func.func @matmul_relu(
// BEFORE-NEXT:    loop.for %{{.*}} = 0 to 4 step 1 {
// BEFORE:           arith.addf
// BEFORE:       {{^}}    loop.for %[[I:.*]] = 0 to 4 step 1 {
// BEFORE-NEXT:      loop.for %[[J:.*]] = 0 to 16 step 1 {
// BEFORE-NEXT:        loop.load %{{.*}}[%[[I]], %[[J]]]
// BEFORE-NEXT:        arith.constant 0.000000e+00
// BEFORE-NEXT:        arith.maximumf

// AFTER-LABEL: func.func @matmul_relu(
// AFTER-SAME:    %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// AFTER-NEXT:    loop.for %[[I:.*]] = 0 to 4 step 1 {
// AFTER:           loop.for %[[K:.*]] = 0 to 8 step 1 {
// AFTER:             loop.store %{{.*}}, %[[C]]
// AFTER-NEXT:      }
// AFTER-NEXT:    }
// AFTER-NEXT:    loop.for %[[J:.*]] = 0 to 16 step 1 {
// AFTER-NEXT:      %[[V:.*]] = loop.load %[[C]][%[[I]], %[[J]]] : memref<4x16xf32> -> f32
// AFTER-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// AFTER-NEXT:      %[[R:.*]] = arith.maximumf %[[V]], %[[Z]] : f32
// AFTER-NEXT:      loop.store %[[R]], %[[C]][%[[I]], %[[J]]] : f32, memref<4x16xf32>
// AFTER-NEXT:    }
// AFTER-NEXT:  }
// AFTER-NEXT:  func.return

// ERR-AXIS: error: @matmul_relu compute 1: schedule: compute_at 'mm' at 'r0': loop 'r0' is not an unsplit spatial axis the two computes share
// ERR-TARGET: error: @matmul_relu compute 1: no compute named "conv" to run inside (named computes: "mm")
func.func @matmul_relu(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {te.kernel} {
  %c = te.compute "mm" (%i, %j) in [4, 16] sum (%k) in [8] : tensor<4x16xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x16xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  %r = te.compute (%i, %j) in [4, 16] : tensor<4x16xf32> {
    %v = te.read %c[%i, %j] : tensor<4x16xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %z : f32
    te.yield %m : f32
  }
  func.return %r : tensor<4x16xf32>
}
