// convert-te-to-loop on @main: constants become loop.constant, kernel results get buffers,
// model outputs are written in place when a kernel produces them and copied otherwise; the
// reshapes, splits and slices convert-graph-to-te left in @main are loop.views of their
// input's buffer (lowering/views.py).
// RUN: minitvm-opt %s --split-input-file -p convert-te-to-loop | filecheck %s

// CHECK-LABEL: func.func @k(
// CHECK-SAME:    %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
func.func @k(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %s = te.compute (%i) in [4] : tensor<4xf32> {
    %x = te.read %a[%i] : tensor<4xf32>
    %y = te.read %b[%i] : tensor<4xf32>
    %z = arith.addf %x, %y : f32
    te.yield %z : f32
  }
  func.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:.*]]: memref<4xf32>, %[[OUT0:.*]]: memref<4xf32>, %[[OUT1:.*]]: memref<4xf32>, %[[OUT2:.*]]: memref<4xf32>) {
// CHECK-NEXT:    %[[W:.*]] = loop.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32> : memref<4xf32>
// CHECK-NEXT:    %[[T:.*]] = loop.alloc : memref<4xf32>
// CHECK-NEXT:    func.call @k(%[[X]], %[[W]], %[[T]]) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    func.call @k(%[[T]], %[[T]], %[[OUT0]]) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT:    loop.copy %[[OUT0]], %[[OUT1]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    loop.copy %[[X]], %[[OUT2]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT:    func.return
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %w = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = func.call @k(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = func.call @k(%0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %1, %1, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A split into rows: a view per piece, at its first element; a reshape: a view from element
// 0; a slice of whole rows: a view at its first row. A view that is a model output is copied
// into it, as any value the kernels do not write there.
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:.*]]: memref<4x32xf32>, %[[OUT0:.*]]: memref<2x32xf32>, %[[OUT1:.*]]: memref<64xf32>) {
// CHECK-NEXT:    %[[T:.*]] = loop.alloc : memref<4x32xf32>
// CHECK-NEXT:    func.call @k(%[[X]], %[[T]])
// CHECK-NEXT:    %[[P0:.*]] = loop.view %[[T]][0] : memref<4x32xf32> to memref<2x32xf32>
// CHECK-NEXT:    %[[P1:.*]] = loop.view %[[T]][64] : memref<4x32xf32> to memref<1x32xf32>
// CHECK-NEXT:    %[[P2:.*]] = loop.view %[[T]][96] : memref<4x32xf32> to memref<1x32xf32>
// CHECK-NEXT:    %[[F:.*]] = loop.view %[[P0]][0] : memref<2x32xf32> to memref<64xf32>
// CHECK-NEXT:    %[[S:.*]] = loop.view %[[X]][32] : memref<4x32xf32> to memref<2x32xf32>
// CHECK-NEXT:    loop.copy %[[S]], %[[OUT0]]
// CHECK-NEXT:    loop.copy %[[F]], %[[OUT1]]
// CHECK-NEXT:    func.return
func.func @k(%a: tensor<4x32xf32>) -> tensor<4x32xf32> attributes {te.kernel} {
  %s = te.compute (%i, %j) in [4, 32] : tensor<4x32xf32> {
    %x = te.read %a[%i, %j] : tensor<4x32xf32>
    te.yield %x : f32
  }
  func.return %s : tensor<4x32xf32>
}
func.func @main(%x: tensor<4x32xf32>) -> (tensor<2x32xf32>, tensor<64xf32>) {
  %t = func.call @k(%x) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %p0, %p1, %p2 = graph.split %t {axis = 0 : i64, sizes = array<i64: 2, 1, 1>} : tensor<4x32xf32> -> tensor<2x32xf32>, tensor<1x32xf32>, tensor<1x32xf32>
  %f = graph.reshape %p0 : tensor<2x32xf32> to tensor<64xf32>
  %s = graph.slice %x {starts = array<i64: 1, 0>, ends = array<i64: 3, 32>, steps = array<i64: 1, 1>} : tensor<4x32xf32> -> tensor<2x32xf32>
  func.return %s, %f : tensor<2x32xf32>, tensor<64xf32>
}
