// graph.invert_permutation: result[perm[i]] = i (a sort's order read back, in O(n)).
// Round-trips in both forms; static and symbolic sizes; diagnostics below.
// RUN: minitvm-opt %s --split-input-file | filecheck %s
// RUN: minitvm-opt %s --split-input-file | minitvm-opt --split-input-file | filecheck %s
// RUN: minitvm-opt %s --split-input-file --print-op-generic | minitvm-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @static(%p: tensor<5xi64>) -> tensor<5xi64> {
// CHECK-NEXT:    %i = graph.invert_permutation %p : tensor<5xi64> -> tensor<5xi64>
func.func @static(%p: tensor<5xi64>) -> tensor<5xi64> {
  %i = graph.invert_permutation %p : tensor<5xi64> -> tensor<5xi64>
  func.return %i : tensor<5xi64>
}

// -----

// CHECK-LABEL: func.func @found(%p: tensor<?xi64, #graph.dims<"u">>) -> tensor<?xi64, #graph.dims<"u">> {
// CHECK-NEXT:    %i = graph.invert_permutation %p : tensor<?xi64, #graph.dims<"u">> -> tensor<?xi64, #graph.dims<"u">>
func.func @found(%p: tensor<?xi64, #graph.dims<"u">>) -> tensor<?xi64, #graph.dims<"u">> {
  %i = graph.invert_permutation %p : tensor<?xi64, #graph.dims<"u">> -> tensor<?xi64, #graph.dims<"u">>
  func.return %i : tensor<?xi64, #graph.dims<"u">>
}
