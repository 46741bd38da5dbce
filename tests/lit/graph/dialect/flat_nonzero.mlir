// graph.flat_nonzero: the positions of a mask's true elements, a vector whose size is a
// symbol of its own (found as the op runs), at most the mask's element count; the ops after
// it use that size as they use an input's. Round-trips in both forms.
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @nonzero(%m: tensor<?x3xi1, #graph.dims<"b">>) -> tensor<?xf32, #graph.dims<"nz">> {
// CHECK-NEXT:    %i = graph.flat_nonzero %m : tensor<?x3xi1, #graph.dims<"b">> -> tensor<?xi64, #graph.dims<"nz">>
// CHECK-NEXT:    %f = graph.cast %i : tensor<?xi64, #graph.dims<"nz">> to tensor<?xf32, #graph.dims<"nz">>
func.func @nonzero(%m: tensor<?x3xi1, #graph.dims<"b">>) -> tensor<?xf32, #graph.dims<"nz">> {
  %i = graph.flat_nonzero %m : tensor<?x3xi1, #graph.dims<"b">> -> tensor<?xi64, #graph.dims<"nz">>
  %f = graph.cast %i : tensor<?xi64, #graph.dims<"nz">> to tensor<?xf32, #graph.dims<"nz">>
  func.return %f : tensor<?xf32, #graph.dims<"nz">>
}
