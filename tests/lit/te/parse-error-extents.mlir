// The extents written in the custom form must be the result type's shape.
// RUN: not minitvm-opt %s 2>&1 | filecheck %s
// CHECK: parse-error-extents.mlir:[[# @LINE + 2]]:31: error: te.compute: 2 index arguments in [5, 7] do not match the result type tensor<4x16xf32>
func.func @k(%x: tensor<4x16xf32>) -> tensor<4x16xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [5, 7] : tensor<4x16xf32> {
    %v = te.read %x[%i, %j] : tensor<4x16xf32>
    te.yield %v : f32
  }
  func.return %c : tensor<4x16xf32>
}
