// --split-input-file processes each chunk on its own; errors keep the line numbers of the file.
// RUN: not minitvm-opt %s --split-input-file 2>&1 | filecheck %s
// RUN: sed -e 's/tensor<5xi64>/tensor<2xi64>/' %s | minitvm-opt --split-input-file | filecheck %s --check-prefix=FIXED

// CHECK-LABEL: func.func @first
// CHECK-NEXT:    %0 = graph.relu %x : tensor<4xf32>
// CHECK:       {{^}}// {{-----}}
// CHECK-LABEL: func.func @second
// CHECK-NEXT:    %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
// CHECK:       {{^}}// {{-----}}
// CHECK-NEXT:  split-input-file.mlir:[[# @LINE + 23]]:3: error: graph.constant: value has type tensor<2xi64> but the result is tensor<5xi64>
// CHECK-NOT:   Traceback

// FIXED-LABEL: func.func @first
// FIXED-LABEL: func.func @second
// FIXED-LABEL: func.func @third
// FIXED-NEXT:    %0 = graph.constant dense<[1, 2]> : tensor<2xi64>

func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

func.func @second() -> tensor<2xi64> {
  %0 = graph.constant dense<[1, 2]> : tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @third() -> tensor<5xi64> {
  %0 = "graph.constant"() <{value = dense<[1, 2]> : tensor<2xi64>}> : () -> tensor<5xi64>
  func.return %0 : tensor<5xi64>
}
