// convert-te-to-loop marks one loop `parallel` per compute that does at least 16384 scalar
// operations (iterations x body ops) when its schedule marked none: the first loop of two or
// more iterations, if it and the loops around it are spatial. A schedule's `parallel` on a
// reduction loop is dropped (its iterations would race on the accumulator).
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

// 64x64x64 multiply-adds: the batch loop has one iteration, rows go to the threads (each
// row's accumulator init with them).
// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    loop.for %{{.*}} = 0 to 1 step 1 {
// CHECK-NEXT:      loop.for %{{.*}} = 0 to 64 step 1 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 64 step 1 {
// CHECK-NEXT:          arith.constant
// CHECK-NEXT:          loop.store
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 64 step 1 {
// CHECK-NEXT:          loop.for %{{.*}} = 0 to 64 step 1 {
// CHECK:               }
// CHECK-NEXT:        }
// CHECK-NEXT:      } {parallel}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @matmul(%A: tensor<1x64x64xf32>, %B: tensor<64x64xf32>) -> tensor<1x64x64xf32> attributes {te.kernel} {
  %c = te.compute (%b, %i, %j) in [1, 64, 64] sum (%k) in [64] : tensor<1x64x64xf32> {
    %a = te.read %A[%b, %i, %k] : tensor<1x64x64xf32>
    %w = te.read %B[%k, %j] : tensor<64x64xf32>
    %p = arith.mulf %a, %w : f32
    te.yield %p : f32
  }
  func.return %c : tensor<1x64x64xf32>
}

// 64 x 32 elements, 3 ops each: below the bar, no loop is marked.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     {parallel}
// CHECK:         func.return
func.func @small(%x: tensor<64x32xf32>) -> tensor<64x32xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j) in [64, 32] : tensor<64x32xf32> {
    %v = te.read %x[%i, %j] : tensor<64x32xf32>
    %w = arith.addf %v, %v : f32
    te.yield %w : f32
  }
  func.return %y : tensor<64x32xf32>
}

// A schedule that parallelizes the reduction: dropped, and no other loop is marked.
// CHECK-LABEL: func.func @reduce(
// CHECK-NOT:     {parallel}
// CHECK:         func.return
func.func @reduce(%x: tensor<256x256xf32>) -> tensor<256xf32> attributes {te.kernel} {
  %s = te.compute (%i) in [256] sum (%r) in [256] {schedule = [#te.reorder<["r0", "i0"]>, #te.parallel<"r0">]} : tensor<256xf32> {
    %v = te.read %x[%r, %i] : tensor<256x256xf32>
    te.yield %v : f32
  }
  func.return %s : tensor<256xf32>
}

// A classifier's matrix-vector product accumulates along its columns, inside the reduction:
// in the plain order (i0 of one iteration, r0, i1) no spatial loop outside the reduction has
// work to share, and nothing is marked.
// CHECK-LABEL: func.func @classifier_plain(
// CHECK-NOT:     {parallel}
// CHECK:         func.return
func.func @classifier_plain(%x: tensor<1x256xf32>, %w: tensor<256x200xf32>) -> tensor<1x200xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j) in [1, 200] sum (%k) in [256] : tensor<1x200xf32> {
    %a = te.read %x[%i, %k] : tensor<1x256xf32>
    %b = te.read %w[%k, %j] : tensor<256x200xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %y : tensor<1x200xf32>
}

// Its column blocks run outermost (the reduction template's `column_block`): the threads
// share them, each block's accumulator init going with it.
// CHECK-LABEL: func.func @classifier_blocked(
// CHECK-NEXT:    loop.for %{{.*}} = 0 to 1 step 1 {
// CHECK-NEXT:      loop.for %[[BLOCK:\w+]] = 0 to 5 step 1 {
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 40 step 1 {
// CHECK:               loop.store
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.for %{{.*}} = 0 to 256 step 1 {
// CHECK-NEXT:          loop.for %{{.*}} = 0 to 40 step 1 {
// CHECK:               }
// CHECK-NEXT:        }
// CHECK-NEXT:      } {parallel}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
func.func @classifier_blocked(%x: tensor<1x256xf32>, %w: tensor<256x200xf32>) -> tensor<1x200xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j) in [1, 200] sum (%k) in [256] {schedule = [#te.split<"i1", 40>, #te.reorder<["i1.o", "r0"]>]} : tensor<1x200xf32> {
    %a = te.read %x[%i, %k] : tensor<1x256xf32>
    %b = te.read %w[%k, %j] : tensor<256x200xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %y : tensor<1x200xf32>
}
