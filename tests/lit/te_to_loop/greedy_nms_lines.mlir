// A thresholded graph.greedy_nms of 40 boxes (lowering/nms_to_loop.py: _gather_candidates)
// tests its scores a cache line (16 f32) at a time: one vector compare with the threshold,
// OR-reduced, and the line's boxes appended one by one (branch-free) only where some score
// is above it; the 8 boxes after the two whole lines one by one.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s
// The comparison of a popped candidate with the boxes kept so far reads their planes (rows
// of their own) 16 boxes a step once loop-vectorize has run: the IoU test on vectors, the
// suppression an OR-reduction; the 0-15 boxes left one by one.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop,loop-vectorize | filecheck %s --check-prefix=VEC

// CHECK-LABEL: func.func @main(
// CHECK:         %[[HEAP:\d+]] = loop.alloc : memref<40xi64>
// CHECK:         %[[THRESHOLD:\d+]] = loop.load %4[] : memref<f32> -> f32
// CHECK:         %[[N:\d+]] = arith.constant 40 : index
// CHECK:         loop.for %[[B:\d+]] = 0 to 1 step 1 {
// CHECK:           loop.for %[[C:\d+]] = 0 to 1 step 1 {
// CHECK:             %[[NONE:\d+]] = arith.constant 0 : index
// CHECK-NEXT:        %[[LANES:\d+]] = arith.constant 16 : index
// CHECK-NEXT:        %[[LINES:\d+]] = arith.divui %[[N]], %[[LANES]] : index
// CHECK-NEXT:        %[[M:\d+]] = loop.for %[[LINE:\d+]] = 0 to %[[LINES]] (at most 2) step 1 iter_args(%[[COUNT:\d+]] = %[[NONE]]) -> (index) {
// CHECK-NEXT:          %[[START:\d+]] = arith.muli %[[LINE]], %[[LANES]] : index
// CHECK-NEXT:          %[[SCORES:\d+]] = loop.vload %1[%[[B]], %[[C]], %[[START]]] : memref<1x1x40xf32> -> vector<16xf32>
// CHECK-NEXT:          %[[BAR:\d+]] = loop.broadcast %[[THRESHOLD]] : f32 -> vector<16xf32>
// CHECK-NEXT:          %[[ABOVE:\d+]] = loop.vcmpf "ogt", %[[SCORES]], %[[BAR]] : vector<16xf32> -> vector<16xi1>
// CHECK-NEXT:          %[[FALSE:\d+]] = arith.constant false
// CHECK-NEXT:          %[[SOME:\d+]] = loop.vreduce "ori" %[[FALSE]], %[[ABOVE]] : vector<16xi1> -> i1
// CHECK-NEXT:          %[[BOXES:\d+]] = arith.select %[[SOME]], %[[LANES]], %[[NONE]] : index
// CHECK-NEXT:          %[[LINE_M:\d+]] = loop.for %[[K:\d+]] = 0 to %[[BOXES]] (at most 16) step 1 iter_args(%[[AT:\d+]] = %[[COUNT]]) -> (index) {
// CHECK-NEXT:            %[[P:\d+]] = arith.addi %[[START]], %[[K]] : index
// CHECK-NEXT:            %[[PI:\d+]] = arith.index_cast %[[P]] : index to i64
// CHECK-NEXT:            loop.store %[[PI]], %[[HEAP]][%[[AT]]] : i64, memref<40xi64>
// CHECK-NEXT:            %[[SCORE:\d+]] = loop.load %1[%[[B]], %[[C]], %[[P]]] : memref<1x1x40xf32> -> f32
// CHECK-NEXT:            %{{\d+}} = arith.cmpf ogt, %[[SCORE]], %[[THRESHOLD]] : f32
// CHECK:                 loop.yield %{{\d+}} : index
// CHECK-NEXT:          }
// CHECK-NEXT:          loop.yield %[[LINE_M]] : index
// CHECK-NEXT:        }
// The tail: the boxes after the whole lines, one by one.
// CHECK-NEXT:        %[[DONE:\d+]] = arith.muli %[[LINES]], %[[LANES]] : index
// CHECK-NEXT:        %[[REST:\d+]] = arith.subi %[[N]], %[[DONE]] : index
// CHECK-NEXT:        %{{\d+}} = loop.for %[[R:\d+]] = 0 to %[[REST]] (at most 15) step 1 iter_args(%{{\d+}} = %[[M]]) -> (index) {
// CHECK-NEXT:          %{{\d+}} = arith.addi %[[DONE]], %[[R]] : index
// VEC:         %{{\d+}} = loop.alloc : memref<5x40xf32>
// VEC-NEXT:    %[[KEPT:\d+]] = loop.alloc : memref<5x40xf32>
// VEC:         %[[IOU:\d+]] = loop.load %3[] : memref<f32> -> f32
// VEC:         %[[X0:\d+]] = loop.vload %[[KEPT]][%{{\d+}}, %[[J:\d+]]] : memref<5x40xf32> -> vector<16xf32>
// VEC-NEXT:    %{{\d+}} = arith.constant 1 : index
// VEC-NEXT:    %[[Y0:\d+]] = loop.vload %[[KEPT]][%{{\d+}}, %[[J]]] : memref<5x40xf32> -> vector<16xf32>
// VEC:         %[[RATIO:\d+]] = arith.divf %{{\d+}}, %{{\d+}} : vector<16xf32>
// VEC-NEXT:    %[[BAR:\d+]] = loop.broadcast %[[IOU]] : f32 -> vector<16xf32>
// VEC-NEXT:    %{{\d+}} = loop.vcmpf "ogt", %[[RATIO]], %[[BAR]] : vector<16xf32> -> vector<16xi1>
// VEC:         loop.vreduce "ori" %{{\d+}}, %{{\d+}} : vector<16xi1> -> i1
// VEC:         loop.for %{{\d+}} = 0 to %{{\d+}} (at most 15) step 1 iter_args(%{{\d+}} = %{{\d+}}) -> (i1) {
// VEC:           arith.divf %{{\d+}}, %{{\d+}} : f32
func.func @main(%boxes: tensor<1x40x4xf32>, %scores: tensor<1x1x40xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) -> (tensor<1x1x40xi1>, tensor<1x1x40xi64>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t {thresholded = 1 : i64} : (tensor<1x40x4xf32>, tensor<1x1x40xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x1x40xi1>, tensor<1x1x40xi64>)
  func.return %keep, %order : tensor<1x1x40xi1>, tensor<1x1x40xi64>
}
