// Symbolic dimensions in wrong IR: each error names what is wrong.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A shape rule checks symbolic results as numeric ones: seq + 1 rows, not seq.
// CHECK:      {{^}}graph.concat: result should be tensor<?x?x8xf32, #graph.dims<"batch", "seq + 1">> but is declared tensor<?x?x8xf32, #graph.dims<"batch", "seq">>{{$}}
func.func @concat(%t: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>, %one: tensor<?x1x8xf32, #graph.dims<"batch">>) {
  %0 = graph.concat %one, %t {axis = 1 : i64} : (tensor<?x1x8xf32, #graph.dims<"batch">>, tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) -> tensor<?x?x8xf32, #graph.dims<"batch", "seq">>
  func.return
}

// -----

// Reshape keeps the element count: batch*seq*8 elements are not seq*8.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.reshape: cannot reshape [batch, seq, 8] (8*batch*seq elements) to [seq, 8] (8*seq elements){{$}}
func.func @reshape(%t: tensor<?x?x8xf32, #graph.dims<"batch", "seq">>) {
  %0 = graph.reshape %t : tensor<?x?x8xf32, #graph.dims<"batch", "seq">> to tensor<?x8xf32, #graph.dims<"seq">>
  func.return
}

// -----

// Two different symbols do not broadcast: their sizes are not known to match.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.add: shapes [seq], [len] do not broadcast (dimension 0){{$}}
func.func @add(%a: tensor<?xf32, #graph.dims<"seq">>, %b: tensor<?xf32, #graph.dims<"len">>) {
  %0 = graph.add %a, %b : (tensor<?xf32, #graph.dims<"seq">>, tensor<?xf32, #graph.dims<"len">>) -> tensor<?xf32, #graph.dims<"seq">>
  func.return
}

// -----

// Each `?` of a tensor a graph op takes needs its expression in #graph.dims.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.relu: input must be a tensor of known shape, got tensor<?x?xf32, #graph.dims<"seq">>{{$}}
func.func @relu(%t: tensor<?x?xf32, #graph.dims<"seq">>) {
  %0 = graph.relu %t : tensor<?x?xf32, #graph.dims<"seq">>
  func.return
}

// -----

// graph.sizes holds one value per element of its static result.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.sizes: 1 values for a result of static shape 2{{$}}
func.func @sizes() {
  %0 = graph.sizes {values = #graph.sizes<"seq">} : tensor<2xi64>
  func.return
}
