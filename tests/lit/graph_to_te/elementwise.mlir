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

// -----

// mod (fmod = 0) on a signed integer: the divisor has 0 and -1 replaced by 1 (x86 traps on
// them; the remainder by 1 is the 0 numpy gives), then a remainder whose sign differs from
// the divisor's moves by the divisor (Python's %).
// CHECK-LABEL: func.func @mod_0(
// CHECK:         te.read %{{\w+}}[%{{\w+}}] : tensor<4xi32>
// CHECK-NEXT:    %[[VB:\w+]] = te.read %{{\w+}}[%{{\w+}}] : tensor<4xi32>
// CHECK:         %[[UNSAFE:\w+]] = arith.ori %{{\w+}}, %{{\w+}} : i1
// CHECK-NEXT:    %[[ONE:\w+]] = arith.constant 1 : i32
// CHECK-NEXT:    %[[D:\w+]] = arith.select %[[UNSAFE]], %[[ONE]], %[[VB]] : i32
// CHECK-NEXT:    %[[R:\w+]] = arith.remsi %{{\w+}}, %[[D]] : i32
// CHECK:         %[[FIX:\w+]] = arith.andi %{{\w+}}, %{{\w+}} : i1
// CHECK-NEXT:    %[[MOVED:\w+]] = arith.addi %[[R]], %[[D]] : i32
// CHECK-NEXT:    %[[OUT:\w+]] = arith.select %[[FIX]], %[[MOVED]], %[[R]] : i32
// CHECK-NEXT:    te.yield %[[OUT]] : i32
func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = graph.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return %0 : tensor<4xi32>
}

// -----

// bit_shift keeps the amount below the width (LLVM makes wider shifts poison) and gives 0
// past it; unsigned constants are signless constants bitcast (arith.constant is signless).
// CHECK-LABEL: func.func @bit_shift_0(
// CHECK:         te.read %{{\w+}}[%{{\w+}}] : tensor<4xui8>
// CHECK-NEXT:    %[[S:\w+]] = te.read %{{\w+}}[%{{\w+}}] : tensor<4xui8>
// CHECK-NEXT:    %[[W:\w+]] = arith.constant 8 : i8
// CHECK-NEXT:    %[[WU:\w+]] = arith.bitcast %[[W]] : i8 to ui8
// CHECK-NEXT:    %[[OK:\w+]] = arith.cmpi ult, %[[S]], %[[WU]] : ui8
// CHECK:         %[[SAFE:\w+]] = arith.select %[[OK]], %[[S]], %{{\w+}} : ui8
// CHECK-NEXT:    %[[SHL:\w+]] = arith.shli %{{\w+}}, %[[SAFE]] : ui8
// CHECK:         %[[OUT:\w+]] = arith.select %[[OK]], %[[SHL]], %{{\w+}} : ui8
// CHECK-NEXT:    te.yield %[[OUT]] : ui8
func.func @main(%x: tensor<4xui8>, %s: tensor<4xui8>) -> tensor<4xui8> {
  %0 = graph.bit_shift %x, %s : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  func.return %0 : tensor<4xui8>
}

// -----

// softplus = max(x, 0) + log1p(exp(-|x|)); an f16 input is computed in f32, rounded once.
// CHECK-LABEL: func.func @softplus_0(
// CHECK:         %[[V:\w+]] = te.read %{{\w+}}[%{{\w+}}] : tensor<4xf16>
// CHECK-NEXT:    %[[X:\w+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT:    %[[ZERO:\w+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[POS:\w+]] = arith.maximumf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:    %[[ABS:\w+]] = math.absf %[[X]] : f32
// CHECK-NEXT:    %[[NEG:\w+]] = arith.negf %[[ABS]] : f32
// CHECK-NEXT:    %[[E:\w+]] = math.exp %[[NEG]] : f32
// CHECK-NEXT:    %[[L:\w+]] = math.log1p %[[E]] : f32
// CHECK-NEXT:    %[[SUM:\w+]] = arith.addf %[[POS]], %[[L]] : f32
// CHECK-NEXT:    %[[OUT:\w+]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK-NEXT:    te.yield %[[OUT]] : f16
func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = graph.softplus %x : tensor<4xf16>
  func.return %0 : tensor<4xf16>
}

// -----

// bitcast: the element's bits as the other type, arith.bitcast.
// CHECK-LABEL: func.func @bitcast_0(
// CHECK-SAME:    %[[X:\w+]]: tensor<4xf32>) -> tensor<4xi32> attributes {te.kernel} {
// CHECK-NEXT:    %[[R:\w+]] = te.compute (%[[I:\w+]]) in [4] : tensor<4xi32> {
// CHECK-NEXT:      %[[V:\w+]] = te.read %[[X]][%[[I]]] : tensor<4xf32>
// CHECK-NEXT:      %[[B:\w+]] = arith.bitcast %[[V]] : f32 to i32
// CHECK-NEXT:      te.yield %[[B]] : i32
// CHECK-NEXT:    }
func.func @main(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = graph.bitcast %x : tensor<4xf32> to tensor<4xi32>
  func.return %0 : tensor<4xi32>
}
