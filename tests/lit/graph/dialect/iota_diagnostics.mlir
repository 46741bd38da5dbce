// graph.iota and graph.check in wrong IR: each error names what is wrong.
//
// RUN: minitvm-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The count is one i64.
// CHECK:      {{^}}graph.iota: count must be a tensor<i64> (a scalar), got tensor<2xi64>{{$}}
func.func @vector_count(%n: tensor<2xi64>) {
  %0 = graph.iota %n : tensor<2xi64> -> tensor<?xi64, #graph.dims<"len">>
  func.return
}

// -----

// The result's size is a symbol of its own.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.iota: result must be a vector of i64 whose size is a symbol of its own (the count), got tensor<4xi64>{{$}}
func.func @static_count(%n: tensor<i64>) {
  %0 = graph.iota %n : tensor<i64> -> tensor<4xi64>
  func.return
}

// -----

// A check holds or fails: one boolean.
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.check: ok must be a tensor<i1> (a scalar), got tensor<2xi1>{{$}}
func.func @vector_check(%ok: tensor<2xi1>) {
  graph.check %ok {check = "c", message = "m"} : tensor<2xi1>
  func.return
}

// -----

// It is named like a size (the run time reads it from the sizes array).
// CHECK:      {{^}}// {{-----}}
// CHECK:      graph.check: '2*c' is not a size's name{{$}}
func.func @expression_name(%ok: tensor<i1>) {
  graph.check %ok {check = "2*c", message = "m"} : tensor<i1>
  func.return
}

// -----

// A bound (`most`) is a size expression.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.iota: most: bad dimension '2*': expected more, got the end{{$}}
func.func @bad_most(%n: tensor<i64>) {
  %0 = graph.iota %n {most = "2*"} : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
  func.return
}

// -----

// ... of sizes other than the count's own: the count is clamped to it before its size is set.
// CHECK:      {{^}}// {{-----}}
// CHECK:      {{^}}graph.iota: most (len - 1) is in terms of the count's own size{{$}}
func.func @own_most(%n: tensor<i64>) {
  %0 = graph.iota %n {most = "len - 1"} : tensor<i64> -> tensor<?xi64, #graph.dims<"len">>
  func.return
}
