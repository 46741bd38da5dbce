// Out-of-line weights round-trip: #graph.weights<key> ops and the file's resource section
// come out as they went in, in the custom and the generic form, and printing is a fixpoint.
// RUN: minitvm-opt %s | filecheck %s
// RUN: minitvm-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: minitvm-opt %s --print-op-generic | minitvm-opt | filecheck %s
// RUN: minitvm-opt %s -o %t.1.mlir && minitvm-opt %t.1.mlir -o %t.2.mlir && diff %t.1.mlir %t.2.mlir

// CHECK-LABEL: func.func @main
// CHECK-NEXT:    %0 = graph.constant #graph.weights<fc_w_4e97e43c9439> : tensor<4xf32>
// CHECK-NEXT:    %1 = graph.constant #graph.weights<idx_0b6f7d5d138f> : tensor<2x3xi64>
// CHECK:       {-#
// CHECK-NEXT:    dialect_resources: {
// CHECK-NEXT:      graph: {
// CHECK-NEXT:        fc_w_4e97e43c9439: "0x080000000000803f0000004000004040000000bf",
// xDSL 0.75 prints all entries on one line; either layout parses.
// CHECK:               idx_0b6f7d5d138f: "0x08000000000000000000000001000000000000000200000000000000030000000000000004000000000000000500000000000000"
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  #-}

// GENERIC: "graph.constant"() <{value = #graph.weights<fc_w_4e97e43c9439>}> : () -> tensor<4xf32>
// GENERIC: fc_w_4e97e43c9439: "0x080000000000803f0000004000004040000000bf"

func.func @main() -> (tensor<4xf32>, tensor<2x3xi64>) {
  %0 = graph.constant #graph.weights<fc_w_4e97e43c9439> : tensor<4xf32>
  %1 = graph.constant #graph.weights<idx_0b6f7d5d138f> : tensor<2x3xi64>
  func.return %0, %1 : tensor<4xf32>, tensor<2x3xi64>
}

{-#
  dialect_resources: {
    graph: {
      fc_w_4e97e43c9439: "0x080000000000803f0000004000004040000000bf",
      idx_0b6f7d5d138f: "0x08000000000000000000000001000000000000000200000000000000030000000000000004000000000000000500000000000000"
    }
  }
#-}
