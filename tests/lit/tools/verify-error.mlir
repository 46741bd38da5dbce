// An op that fails to verify is reported at its own location, with its verifier's message.
// RUN: not minitvm-opt %s 2>&1 | filecheck %s
// RUN: not minitvm-opt %s -o %t 2>&1 | filecheck %s
// RUN: not ls %t

// CHECK: verify-error.mlir:[[# @LINE + 5]]:3: error: graph.add: result should be tensor<2x3xf32> but is declared tensor<2x4xf32>
// CHECK-NEXT: {{^}}  %1 = graph.add %0, %b
// CHECK-NOT: Traceback
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x4xf32> {
  %0 = graph.relu %a : tensor<2x3xf32>
  %1 = graph.add %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  func.return %1 : tensor<2x4xf32>
}
