// convert-te-to-loop writes a graph.argsort of the first k < n positions (TopK's) as a heap
// selection over each row: out[r, :k] starts as 0..k-1 and is made a heap whose root is the
// worst kept (the sort's order, a later index losing a tie); each later element that beats
// the root replaces it and sifts down (log2(k) branch-free steps: the worse child moved up
// while it is worse than the entry sifted down); the heap is then sorted in place, the root swapped
// to the end each time.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<2x5xf32>, %1: memref<2x2xi64>) {
// CHECK:         loop.for %[[R:\d+]] = 0 to 2 step 1 {
// CHECK-NEXT:      loop.for %[[T:\d+]] = 0 to 2 step 1 {
// CHECK-NEXT:        %[[AT:\d+]] = arith.index_cast %[[T]] : index to i64
// CHECK-NEXT:        loop.store %[[AT]], %1[%[[R]], %[[T]]] : i64, memref<2x2xi64>
// CHECK-NEXT:      }
// The heapify: one sift-down from each parent slot. The entry sifted down is read once
// (its position and value) and carried: each step writes the child that moves up (or, once
// it stops, the entry) into the slot it leaves; the entry lands in its last slot after.
// CHECK:           loop.for %{{\d+}} = 0 to 1 step 1 {
// CHECK:             %[[HERE_AT:\d+]] = loop.load %1[%[[R]], %[[START:\d+]]] : memref<2x2xi64> -> i64
// CHECK-NEXT:        %[[HERE_INDEX:\d+]] = arith.index_cast %[[HERE_AT]] : i64 to index
// CHECK-NEXT:        %[[HERE_VALUE:\d+]] = loop.load %0[%[[R]], %[[HERE_INDEX]]] : memref<2x5xf32> -> f32
// CHECK-NEXT:        %[[LAST_SLOT:\d+]], %{{\d+}} = loop.for %{{\d+}} = 0 to 2 step 1 iter_args(%[[SLOT:\d+]] = %[[START]], %[[GOING:\d+]] = %{{\d+}}) -> (index, i1) {
// CHECK:               %[[WORSE:\d+]] = arith.ori %{{\d+}}, %{{\d+}} : i1
// CHECK-NEXT:          %[[RIGHT_WORSE:\d+]] = arith.andi %{{\d+}}, %[[WORSE]] : i1
// CHECK-NEXT:          %[[CHILD:\d+]] = arith.select %[[RIGHT_WORSE]], %{{\d+}}, %{{\d+}} : index
// CHECK-NEXT:          %[[CHILD_AT:\d+]] = arith.select %[[RIGHT_WORSE]], %{{\d+}}, %{{\d+}} : i64
// CHECK-NEXT:          %[[CHILD_VALUE:\d+]] = arith.select %[[RIGHT_WORSE]], %{{\d+}}, %{{\d+}} : f32
// CHECK-NOT:           loop.load
// CHECK:               %[[BEATEN:\d+]] = arith.cmpf ogt, %[[HERE_VALUE]], %[[CHILD_VALUE]] : f32
// CHECK:               %[[WORSE2:\d+]] = arith.ori %[[BEATEN]], %{{\d+}} : i1
// CHECK-NEXT:          %[[SWAP:\d+]] = arith.andi %{{\d+}}, %[[WORSE2]] : i1
// CHECK-NEXT:          %[[UP:\d+]] = arith.select %[[SWAP]], %[[CHILD_AT]], %[[HERE_AT]] : i64
// CHECK-NEXT:          loop.store %[[UP]], %1[%[[R]], %[[SLOT]]] : i64, memref<2x2xi64>
// CHECK-NEXT:          %[[NEXT:\d+]] = arith.select %[[SWAP]], %[[CHILD]], %[[SLOT]] : index
// CHECK-NEXT:          loop.yield %[[NEXT]], %[[SWAP]] : index, i1
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.store %[[HERE_AT]], %1[%[[R]], %[[LAST_SLOT]]] : i64, memref<2x2xi64>
// The scan of the rest: an element that beats the root replaces it.
// CHECK:           loop.for %[[S:\d+]] = 0 to %{{\d+}} (at most 3) step 1 {
// CHECK-NEXT:        %[[POS:\d+]] = arith.addi %[[S]], %{{\d+}} : index
// CHECK-NEXT:        %[[V:\d+]] = loop.load %0[%[[R]], %[[POS]]] : memref<2x5xf32> -> f32
// CHECK:             %[[ROOT:\d+]] = loop.load %0[%[[R]], %{{\d+}}] : memref<2x5xf32> -> f32
// CHECK-NEXT:        %[[BEATS:\d+]] = arith.cmpf ogt, %[[V]], %[[ROOT]] : f32
// CHECK-NEXT:        loop.if %[[BEATS]] {
// CHECK-NEXT:          %[[NEW:\d+]] = arith.index_cast %[[POS]] : index to i64
// CHECK:               loop.store %[[NEW]], %1[%[[R]], %{{\d+}}] : i64, memref<2x2xi64>
// The heap sorted in place: the root swapped to the end, then sifted within the rest.
// CHECK:           loop.for %{{\d+}} = 0 to 1 step 1 {
// CHECK:             loop.store %[[LAST:\d+]], %1[%[[R]], %[[ZERO:\d+]]] : i64, memref<2x2xi64>
// CHECK-NEXT:        loop.store %[[FIRST:\d+]], %1[%[[R]], %[[END:\d+]]] : i64, memref<2x2xi64>
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x2xi64> {
  %i = graph.argsort %x {descending = 1 : i64} : tensor<2x5xf32> -> tensor<2x2xi64>
  func.return %i : tensor<2x2xi64>
}
