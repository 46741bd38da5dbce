// A parse error names the file, line and column, and prints no Python traceback.
// RUN: not minitvm-opt %s 2>&1 | filecheck %s
// RUN: not minitvm-opt < %s 2>&1 | filecheck %s --check-prefix=STDIN

// CHECK: parse-error.mlir:[[# @LINE + 7]]:8: error: Operation graph.bogus is not registered
// CHECK-NEXT: {{^}}  %0 = graph.bogus %x : tensor<2xf32>
// CHECK-NEXT: {{^}}       ^
// CHECK-NOT: Traceback
// STDIN: <stdin>:[[# @LINE + 3]]:8: error: Operation graph.bogus is not registered
// STDIN-NOT: Traceback
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = graph.bogus %x : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
