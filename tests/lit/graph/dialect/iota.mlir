// graph.iota: the positions 0..n-1 of a count computed as the model runs (a Range's length,
// a Reshape's dimension read from a tensor), a vector whose size is a symbol of its own,
// planned for its capacity `<size>_cap`; graph.check stops the run with its message unless
// its operand holds. Round-trips in both forms.
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @range(%n: tensor<i64>) -> tensor<?xf32, #graph.dims<"len">> {
// CHECK-NEXT:    %zero = graph.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %ok = graph.greater_equal %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT:    graph.check %ok {check = "r_check", message = "node 'r' (Range): the limit is negative"} : tensor<i1>
// CHECK-NEXT:    %i = graph.iota %n : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
// CHECK-NEXT:    %f = graph.cast %i : tensor<?xi64, #graph.dims<"len">> to tensor<?xf32, #graph.dims<"len">>
func.func @range(%n: tensor<i64>) -> tensor<?xf32, #graph.dims<"len">> {
  %zero = graph.constant dense<0> : tensor<i64>
  %ok = graph.greater_equal %n, %zero : (tensor<i64>, tensor<i64>) -> tensor<i1>
  graph.check %ok {check = "r_check", message = "node 'r' (Range): the limit is negative"} : tensor<i1>
  %i = graph.iota %n : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
  %f = graph.cast %i : tensor<?xi64, #graph.dims<"len">> to tensor<?xf32, #graph.dims<"len">>
  func.return %f : tensor<?xf32, #graph.dims<"len">>
}
