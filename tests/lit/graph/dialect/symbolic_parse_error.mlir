// A #graph.dims expression must be in the normal form the printer writes, so that equal
// shapes have equal types; the error points at the expression and says how to write it.
//
// RUN: not minitvm-opt %s 2>&1 | filecheck %s

// CHECK: symbolic_parse_error.mlir:[[# @LINE + 3]]:46: error: #graph.dims: 'seq * 12' is not in normal form (write '12*seq')
// CHECK-NEXT: func.func @f(%t: tensor<?x8xf32, #graph.dims<"seq * 12">>) {
// CHECK-NEXT: {{^ +\^$}}
func.func @f(%t: tensor<?x8xf32, #graph.dims<"seq * 12">>) {
  func.return
}
