// convert-graph-to-te on elementwise ops: one te.compute over the result's shape per op.
// Binary ops read their operands with numpy broadcasting: a missing leading dim is dropped
// from the read, a dim of size 1 reads index 0, a rank-0 operand reads [].
// RUN: minitvm-opt %s --split-input-file -p convert-graph-to-te | filecheck %s

// Unary: relu is max(x, 0) at every index.
// CHECK-LABEL: func.func @relu_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x3xf32>) -> tensor<2x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 3] : tensor<2x3xf32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[MAX:\w+]] = arith.maximumf %[[V]], %[[ZERO]] : f32
// CHECK-NEXT:      te.yield %[[MAX]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = graph.relu %x : tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// add with a lower-rank operand: b's missing leading dim is dropped (b[j]).
// CHECK-LABEL: func.func @add_0(
// CHECK-SAME:    %[[A:\w+]]: tensor<2x3xf32>, %[[B:\w+]]: tensor<3xf32>) -> tensor<2x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 3] : tensor<2x3xf32> {
// CHECK-NEXT:      %[[VA:\w+]] = te.read %[[A]][%[[I]], %[[J]]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[VB:\w+]] = te.read %[[B]][%[[J]]] : tensor<3xf32>
// CHECK-NEXT:      %[[S:\w+]] = arith.addf %[[VA]], %[[VB]] : f32
// CHECK-NEXT:      te.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]]
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// Both operands broadcast: a's size-1 middle dim reads 0; b lacks the leading dim and its
// size-1 last dim reads 0. A rank-0 operand reads [] at every index.
// CHECK-LABEL: func.func @add_0(
// CHECK-SAME:    %[[A:\w+]]: tensor<4x1x3xf32>, %[[B:\w+]]: tensor<2x1xf32>) -> tensor<4x2x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]], %[[K:\w+]]) in [4, 2, 3] : tensor<4x2x3xf32> {
// CHECK-NEXT:      %[[Z0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[VA:\w+]] = te.read %[[A]][%[[I]], %[[Z0]], %[[K]]] : tensor<4x1x3xf32>
// CHECK-NEXT:      %[[Z1:\w+]] = arith.constant 0 : index
// CHECK-NEXT:      %[[VB:\w+]] = te.read %[[B]][%[[J]], %[[Z1]]] : tensor<2x1xf32>
// CHECK-NEXT:      %[[S:\w+]] = arith.addf %[[VA]], %[[VB]] : f32
// CHECK-NEXT:      te.yield %[[S]] : f32
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @mul_1(
// CHECK-SAME:    %[[X:\w+]]: tensor<4x2x3xf32>, %[[C:\w+]]: tensor<f32>) -> tensor<4x2x3xf32> attributes {te.kernel} {
// CHECK-NEXT:    %[[M:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]], %[[K:\w+]]) in [4, 2, 3] : tensor<4x2x3xf32> {
// CHECK-NEXT:      %[[VX:\w+]] = te.read %[[X]][%[[I]], %[[J]], %[[K]]] : tensor<4x2x3xf32>
// CHECK-NEXT:      %[[VC:\w+]] = te.read %[[C]][] : tensor<f32>
// CHECK-NEXT:      %[[P:\w+]] = arith.mulf %[[VX]], %[[VC]] : f32
// CHECK-NEXT:      te.yield %[[P]] : f32
// CHECK-NEXT:    }
func.func @main(%a: tensor<4x1x3xf32>, %b: tensor<2x1xf32>, %s: tensor<f32>) -> tensor<4x2x3xf32> {
  %0 = graph.add %a, %b : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %1 = graph.mul %0, %s : (tensor<4x2x3xf32>, tensor<f32>) -> tensor<4x2x3xf32>
  func.return %1 : tensor<4x2x3xf32>
}

// -----

// cast: the compute has the target element type; float -> signed int is fptosi.
// CHECK-LABEL: func.func @cast_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<2x3xf32>) -> tensor<2x3xi64> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]], %[[J:\w+]]) in [2, 3] : tensor<2x3xi64> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]], %[[J]]] : tensor<2x3xf32>
// CHECK-NEXT:      %[[C:\w+]] = arith.fptosi %[[V]] : f32 to i64
// CHECK-NEXT:      te.yield %[[C]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<2x3xi64>
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xi64> {
  %0 = graph.cast %x : tensor<2x3xf32> to tensor<2x3xi64>
  func.return %0 : tensor<2x3xi64>
}
