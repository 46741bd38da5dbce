// #te.compute_at: an epilogue runs inside its producer's loop nest, right after the producer
// has finished the elements it reads; a pointwise epilogue updates the producer's buffer in
// place (no scratch argument).
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

// CHECK-LABEL: func.func @matmul_relu(
// CHECK-SAME:    %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>) attributes {loop.kernel}
// Per row i: the row's init, the i-k-j accumulation, then the relu nest after the k loop:
// CHECK-NEXT:    loop.for %[[I:.*]] = 0 to 4 step 1 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 16 step 1 {
// CHECK-NEXT:        arith.constant 0.000000e+00
// CHECK-NEXT:        loop.store
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.for %[[K:.*]] = 0 to 8 step 1 {
// CHECK-NEXT:        loop.for %[[J:.*]] = 0 to 16 step 1 {
// CHECK:               loop.store %{{.*}}, %[[C]][%[[I]], %[[J]]]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      loop.for %[[J2:.*]] = 0 to 16 step 1 {
// CHECK-NEXT:        %[[V:.*]] = loop.load %[[C]][%[[I]], %[[J2]]] : memref<4x16xf32> -> f32
// CHECK-NEXT:        %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:        %[[R:.*]] = arith.maximumf %[[V]], %[[Z]] : f32
// CHECK-NEXT:        loop.store %[[R]], %[[C]][%[[I]], %[[J2]]] : f32, memref<4x16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @matmul_relu(%A: tensor<4x8xf32>, %B: tensor<8x16xf32>) -> tensor<4x16xf32> attributes {te.kernel} {
  %c = te.compute "mm" (%i, %j) in [4, 16] sum (%k) in [8] : tensor<4x16xf32> {
    %a = te.read %A[%i, %k] : tensor<4x8xf32>
    %b = te.read %B[%k, %j] : tensor<8x16xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  %r = te.compute (%i, %j) in [4, 16] {schedule = [#te.compute_at<"mm", "i0">]} : tensor<4x16xf32> {
    %v = te.read %c[%i, %j] : tensor<4x16xf32>
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %v, %z : f32
    te.yield %m : f32
  }
  func.return %r : tensor<4x16xf32>
}
