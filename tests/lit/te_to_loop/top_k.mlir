// convert-te-to-loop writes a graph.argsort of the first k < n positions (TopK's) as a
// selection in one pass over each row: out[r, :k] keeps the best so far in order; an element
// enters while fewer than k are kept or when it strictly beats the last kept (read at a valid
// position either way), and is inserted by one loop over the kept slots from the end, which
// moves each slot down while the element beats the one above it (a carried flag, no branch).
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<2x5xf32>, %1: memref<2x2xi64>) {
// CHECK:         loop.for %[[R:\d+]] = 0 to 2 step 1 {
// CHECK-NEXT:      loop.for %[[T:\d+]] = 0 to 5 step 1 {
// CHECK-NEXT:        %[[V:\d+]] = loop.load %0[%[[R]], %[[T]]] : memref<2x5xf32> -> f32
// CHECK-NEXT:        %[[FULL:\d+]] = arith.cmpi sge, %[[T]], %{{\d+}} : index
// CHECK-NEXT:        %[[LAST:\d+]] = loop.load %1[%[[R]], %{{\d+}}] : memref<2x2xi64> -> i64
// CHECK-NEXT:        %[[LAST_AT:\d+]] = arith.index_cast %[[LAST]] : i64 to index
// CHECK-NEXT:        %[[SAFE:\d+]] = arith.select %[[FULL]], %[[LAST_AT]], %[[T]] : index
// CHECK-NEXT:        %[[WORST:\d+]] = loop.load %0[%[[R]], %[[SAFE]]] : memref<2x5xf32> -> f32
// CHECK:             %[[ROOM:\d+]] = arith.xori %[[FULL]], %{{\d+}} : i1
// CHECK-NEXT:        %[[BEATS:\d+]] = arith.cmpf ogt, %[[V]], %[[WORST]] : f32
// CHECK-NEXT:        %[[ENTERS:\d+]] = arith.ori %[[ROOM]], %[[BEATS]] : i1
// CHECK-NEXT:        loop.if %[[ENTERS]] {
// CHECK:               %{{\d+}} = loop.for %{{\d+}} = 0 to %{{\d+}} (at most 2) step 1 iter_args(%[[MOVING:\d+]] = %{{\d+}}) -> (i1) {
// CHECK:                 %[[SHIFT:\d+]] = arith.andi %{{\d+}}, %{{\d+}} : i1
// CHECK-NEXT:            %[[CURRENT:\d+]] = loop.load %1[%[[R]], %[[P:\d+]]] : memref<2x2xi64> -> i64
// CHECK-NEXT:            %[[PLACED:\d+]] = arith.select %[[SHIFT]], %{{\d+}}, %{{\d+}} : i64
// CHECK-NEXT:            %[[NEW:\d+]] = arith.select %[[MOVING]], %[[PLACED]], %[[CURRENT]] : i64
// CHECK-NEXT:            loop.store %[[NEW]], %1[%[[R]], %[[P]]] : i64, memref<2x2xi64>
// CHECK-NEXT:            %[[STILL:\d+]] = arith.andi %[[MOVING]], %[[SHIFT]] : i1
// CHECK-NEXT:            loop.yield %[[STILL]] : i1
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x2xi64> {
  %i = graph.argsort %x {descending = 1 : i64} : tensor<2x5xf32> -> tensor<2x2xi64>
  func.return %i : tensor<2x2xi64>
}
