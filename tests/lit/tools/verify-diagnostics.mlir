// --verify-diagnostics keeps xDSL's behaviour: print the diagnostic, exit 0.
// RUN: minitvm-opt %s --verify-diagnostics | filecheck %s

// CHECK: graph.constant: value has type tensor<2xi64> but the result is tensor<3xi64>
func.func @main() -> tensor<3xi64> {
  %0 = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<3xi64>
  func.return %0 : tensor<3xi64>
}
