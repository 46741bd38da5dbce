// graph.flat_nonzero in wrong IR: each error names what is wrong.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The mask is boolean.
// CHECK:      {{^}}graph.flat_nonzero: mask must be a boolean (i1) tensor, got tensor<4xf32> (compare or cast to i1 first){{$}}
func.func @float_mask(%m: tensor<4xf32>) {
  %0 = graph.flat_nonzero %m : tensor<4xf32> -> tensor<?xi64, #graph.dims<"nz">>
  func.return
}

// -----

// The count is a size of its own: not a number, not an expression.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.flat_nonzero: result must be a vector of i64 whose size is a symbol of its own (the count), got tensor<4xi64>{{$}}
func.func @static_count(%m: tensor<4xi1>) {
  %0 = graph.flat_nonzero %m : tensor<4xi1> -> tensor<4xi64>
  func.return
}

// -----

// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.flat_nonzero: result must be a vector of i64 whose size is a symbol of its own (the count), got tensor<?xi64, #graph.dims<"2*nz">>{{$}}
func.func @expression(%m: tensor<4xi1>) {
  %0 = graph.flat_nonzero %m : tensor<4xi1> -> tensor<?xi64, #graph.dims<"2*nz">>
  func.return
}
