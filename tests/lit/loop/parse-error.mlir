// A malformed loop.for is a parse error naming the file, line and column of the offending
// token, with the source line and a caret, and no Python traceback.
// RUN: not minitvm-opt %s 2>&1 | filecheck %s

// CHECK: parse-error.mlir:[[# @LINE + 6]]:24: error: Expected 'step'
// CHECK-NEXT: {{^}}  loop.for %i = 0 to 8 {
// CHECK-NEXT: {{^}}                       ^
// CHECK-NOT: Traceback
// CHECK-NOT: builtin.module
func.func @k(%b: memref<8xf32>, %x: f32) {
  loop.for %i = 0 to 8 {
    loop.store %x, %b[%i] : f32, memref<8xf32>
  }
  func.return
}
