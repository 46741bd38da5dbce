// graph.argsort in wrong IR: each error names what is wrong.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK:      {{^}}graph.argsort: input must have rank 2 (rows to sort), got tensor<8xf32>{{$}}
func.func @vector(%x: tensor<8xf32>) {
  %i = graph.argsort %x : tensor<8xf32> -> tensor<8xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.argsort: result must be 2xk of i64, got tensor<2x8xi32>{{$}}
func.func @narrow(%x: tensor<2x8xf32>) {
  %i = graph.argsort %x : tensor<2x8xf32> -> tensor<2x8xi32>
  func.return
}

// -----

// At most the row's length.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.argsort: 9 positions of rows of 8{{$}}
func.func @too_many(%x: tensor<2x8xf32>) {
  %i = graph.argsort %x : tensor<2x8xf32> -> tensor<2x9xi64>
  func.return
}
