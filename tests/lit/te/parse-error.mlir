// A malformed te.compute is a parse error naming the file, line and column of the offending
// token, with the source line and a caret, and no Python traceback.
// RUN: not minitvm-opt %s 2>&1 | filecheck %s

// CHECK: parse-error.mlir:[[# @LINE + 6]]:24: error: Expected 'in'
// CHECK-NEXT: {{^}}  %r = te.compute (%i) over [4] : tensor<4xf32> {
// CHECK-NEXT: {{^}}                       ^
// CHECK-NOT: Traceback
// CHECK-NOT: builtin.module
func.func @k(%x: tensor<4xf32>) -> tensor<4xf32> attributes {te.kernel} {
  %r = te.compute (%i) over [4] : tensor<4xf32> {
    %v = te.read %x[%i] : tensor<4xf32>
    te.yield %v : f32
  }
  func.return %r : tensor<4xf32>
}
