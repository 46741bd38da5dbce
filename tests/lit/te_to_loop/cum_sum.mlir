// convert-te-to-loop writes a graph.cum_sum (and cum_prod) into @main as a scan, O(n) along
// the axis: the dims before the axis outer, the axis (backwards when reversed), the dims after
// it inner; each element is the previous one of its own output (in scan order) plus its input,
// the first one its input alone (exclusive: the identity, and the previous input).
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<2x5x3xf32>, %1: memref<2x5x3xf32>) {
// CHECK:         %[[ONE:\d+]] = arith.constant 1 : index
// CHECK-NEXT:    %{{\d+}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[LAST:\d+]] = arith.subi %{{\d+}}, %[[ONE]] : index
// CHECK-NEXT:    loop.for %[[P:\d+]] = 0 to 2 step 1 {
// CHECK-NEXT:      loop.for %[[S:\d+]] = 0 to 5 step 1 {
// CHECK-NEXT:        %[[J:\d+]] = arith.subi %[[LAST]], %[[S]] : index
// CHECK-NEXT:        %[[FIRST:\d+]] = arith.cmpi eq, %[[S]], %{{\d+}} : index
// CHECK-NEXT:        %[[NEXT:\d+]] = arith.addi %[[J]], %[[ONE]] : index
// CHECK-NEXT:        %[[BEFORE:\d+]] = arith.select %[[FIRST]], %[[J]], %[[NEXT]] : index
// CHECK-NEXT:        loop.for %[[Q:\d+]] = 0 to 3 step 1 {
// CHECK-NEXT:          %[[RUNNING:\d+]] = loop.load %1[%[[P]], %[[BEFORE]], %[[Q]]] : memref<2x5x3xf32> -> f32
// CHECK-NEXT:          %[[X:\d+]] = loop.load %0[%[[P]], %[[J]], %[[Q]]] : memref<2x5x3xf32> -> f32
// CHECK-NEXT:          %[[SUM:\d+]] = arith.addf %[[RUNNING]], %[[X]] : f32
// CHECK-NEXT:          %[[V:\d+]] = arith.select %[[FIRST]], %[[X]], %[[SUM]] : f32
// CHECK-NEXT:          loop.store %[[V]], %1[%[[P]], %[[J]], %[[Q]]] : f32, memref<2x5x3xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @main(%x: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %y = graph.cum_sum %x {axis = 1 : i64, reverse = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
  func.return %y : tensor<2x5x3xf32>
}
