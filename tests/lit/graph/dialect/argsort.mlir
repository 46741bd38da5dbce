// graph.argsort: the positions that sort each row (rank 2, along the last axis), stable,
// largest first when descending; the first k of them (TopK's) or all. Round-trips in both
// forms.
// RUN: minitvm-opt %s --split-input-file | filecheck %s
// RUN: minitvm-opt %s --split-input-file | minitvm-opt --split-input-file | filecheck %s
// RUN: minitvm-opt %s --split-input-file --print-op-generic | minitvm-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @top(%x: tensor<4x50257xf32>) -> tensor<4x50xi64> {
// CHECK-NEXT:    %i = graph.argsort %x {descending = 1 : i64} : tensor<4x50257xf32> -> tensor<4x50xi64>
func.func @top(%x: tensor<4x50257xf32>) -> tensor<4x50xi64> {
  %i = graph.argsort %x {descending = 1 : i64} : tensor<4x50257xf32> -> tensor<4x50xi64>
  func.return %i : tensor<4x50xi64>
}

// -----

// Ascending is the default (elided).
// CHECK-LABEL: func.func @rows(%x: tensor<?x7xi32, #graph.dims<"b">>) -> tensor<?x7xi64, #graph.dims<"b">> {
// CHECK-NEXT:    %i = graph.argsort %x : tensor<?x7xi32, #graph.dims<"b">> -> tensor<?x7xi64, #graph.dims<"b">>
func.func @rows(%x: tensor<?x7xi32, #graph.dims<"b">>) -> tensor<?x7xi64, #graph.dims<"b">> {
  %i = graph.argsort %x : tensor<?x7xi32, #graph.dims<"b">> -> tensor<?x7xi64, #graph.dims<"b">>
  func.return %i : tensor<?x7xi64, #graph.dims<"b">>
}
