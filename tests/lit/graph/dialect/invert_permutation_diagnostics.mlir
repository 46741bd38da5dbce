// graph.invert_permutation in wrong IR: each error names what is wrong.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK:      {{^}}graph.invert_permutation: input must be a permutation, a 1-D tensor of i64, got tensor<2x3xi64>{{$}}
func.func @matrix(%p: tensor<2x3xi64>) {
  %i = graph.invert_permutation %p : tensor<2x3xi64> -> tensor<2x3xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.invert_permutation: result should be tensor<4xi64> but is declared tensor<5xi64>{{$}}
func.func @longer(%p: tensor<4xi64>) {
  %i = graph.invert_permutation %p : tensor<4xi64> -> tensor<5xi64>
  func.return
}
