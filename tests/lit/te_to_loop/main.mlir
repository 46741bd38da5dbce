// convert-te-to-loop on @main: constants become loop.constant, kernel results get buffers,
// model outputs are written in place when a kernel produces them and copied otherwise.
// RUN: minitvm-opt %s -p convert-te-to-loop | filecheck %s

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
