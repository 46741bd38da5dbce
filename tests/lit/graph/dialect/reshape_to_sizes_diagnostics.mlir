// graph.reshape_to_sizes in wrong IR: each error names what is wrong. Its sizes are vectors
// whose sizes are symbols of their own (graph.iota's), the result's shape those symbols in
// order, its element type the input's (the element counts, unknown until the run, are a
// graph.check's to compare, not the verifier's).
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The elements are moved, not converted.
// CHECK:      {{^}}graph.reshape_to_sizes: result element type i64 differs from the input's f32{{$}}
func.func @element_type(%x: tensor<6xf32>, %a: tensor<?xi64, #graph.dims<"a">>, %b: tensor<?xi64, #graph.dims<"b">>) {
  %0 = graph.reshape_to_sizes %x to %a, %b : tensor<6xf32>, tensor<?xi64, #graph.dims<"a">>, tensor<?xi64, #graph.dims<"b">> -> tensor<?x?xi64, #graph.dims<"a", "b">>
  func.return
}

// -----

// No sizes: a scalar result (the generic form: the custom one needs a size after `to`).
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.reshape_to_sizes: needs at least one size (a scalar is a graph.reshape){{$}}
func.func @no_sizes(%x: tensor<6xf32>) {
  %0 = "graph.reshape_to_sizes"(%x) : (tensor<6xf32>) -> tensor<f32>
  func.return
}

// -----

// A size known before the run is a graph.reshape's; the error names the size's position.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.reshape_to_sizes: size 1 must be a vector of i64 whose size is a symbol of its own (a graph.iota's), got tensor<3xi64>{{$}}
func.func @static_size(%x: tensor<6xf32>, %a: tensor<?xi64, #graph.dims<"a">>, %b: tensor<3xi64>) {
  %0 = graph.reshape_to_sizes %x to %a, %b : tensor<6xf32>, tensor<?xi64, #graph.dims<"a">>, tensor<3xi64> -> tensor<?x3xf32, #graph.dims<"a">>
  func.return
}

// -----

// Positions are i64 (graph.iota's).
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.reshape_to_sizes: size 0 must be a vector of i64 whose size is a symbol of its own (a graph.iota's), got tensor<?xi32, #graph.dims<"a">>{{$}}
func.func @i32_size(%x: tensor<6xf32>, %a: tensor<?xi32, #graph.dims<"a">>) {
  %0 = graph.reshape_to_sizes %x to %a : tensor<6xf32>, tensor<?xi32, #graph.dims<"a">> -> tensor<?xf32, #graph.dims<"a">>
  func.return
}

// -----

// A size that is an expression of symbols is not one found as the model runs.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.reshape_to_sizes: size 0 must be a vector of i64 whose size is a symbol of its own (a graph.iota's), got tensor<?xi64, #graph.dims<"2*a">>{{$}}
func.func @expression_size(%x: tensor<6xf32>, %a: tensor<?xi64, #graph.dims<"2*a">>) {
  %0 = graph.reshape_to_sizes %x to %a : tensor<6xf32>, tensor<?xi64, #graph.dims<"2*a">> -> tensor<?xf32, #graph.dims<"2*a">>
  func.return
}

// -----

// The result's dims are the sizes' symbols, in the sizes' order.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.reshape_to_sizes: result shape [b, a] must be the sizes' [a, b]{{$}}
func.func @swapped(%x: tensor<6xf32>, %a: tensor<?xi64, #graph.dims<"a">>, %b: tensor<?xi64, #graph.dims<"b">>) {
  %0 = graph.reshape_to_sizes %x to %a, %b : tensor<6xf32>, tensor<?xi64, #graph.dims<"a">>, tensor<?xi64, #graph.dims<"b">> -> tensor<?x?xf32, #graph.dims<"b", "a">>
  func.return
}

// -----

// One dim per size: a result of another rank does not match either.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.reshape_to_sizes: result shape [a] must be the sizes' [a, b]{{$}}
func.func @rank(%x: tensor<6xf32>, %a: tensor<?xi64, #graph.dims<"a">>, %b: tensor<?xi64, #graph.dims<"b">>) {
  %0 = graph.reshape_to_sizes %x to %a, %b : tensor<6xf32>, tensor<?xi64, #graph.dims<"a">>, tensor<?xi64, #graph.dims<"b">> -> tensor<?xf32, #graph.dims<"a">>
  func.return
}
