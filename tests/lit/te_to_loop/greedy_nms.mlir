// convert-te-to-loop writes a graph.greedy_nms into @main (lowering/nms_to_loop.py): per
// batch its boxes' corners and areas into a scratch of planes, then per class the results cleared, the candidates (score above the threshold) appended
// branch-free into a heap row, the heap built depth by depth (floor(log2 m) found by a
// count), then one pass over the m candidates that pops the best, compares it with the kept
// boxes only (no comparison once the class is full: the trip count is 0), and records
// keep/order at its rank.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// CHECK-LABEL: func.func @main(%0: memref<1x6x4xf32>, %1: memref<1x2x6xf32>, %2: memref<i64>, %3: memref<f32>, %4: memref<f32>, %5: memref<1x2x6xi1>, %6: memref<1x2x6xi64>) {
// CHECK-NEXT:    %[[HEAP:\d+]] = loop.alloc : memref<6xi64>
// CHECK-NEXT:    %[[PLANES:\d+]] = loop.alloc : memref<5x6xf32>
// CHECK-NEXT:    %[[KEPT:\d+]] = loop.alloc : memref<5x6xf32>
// CHECK-NEXT:    %[[MAX:\d+]] = loop.load %2[] : memref<i64> -> i64
// CHECK-NEXT:    %[[IOU:\d+]] = loop.load %3[] : memref<f32> -> f32
// CHECK-NEXT:    %[[THRESHOLD:\d+]] = loop.load %4[] : memref<f32> -> f32
// CHECK:         loop.for %[[B:\d+]] = 0 to 1 step 1 {
// The batch's boxes, two corners [y1, x1, y2, x2] in either order, as planes x0, y0, x1, y1, area.
// CHECK-NEXT:      loop.for %[[Q:\d+]] = 0 to 6 step 1 {
// CHECK:             %[[BY1:\d+]] = loop.load %0[%[[B]], %[[Q]], %{{\d+}}] : memref<1x6x4xf32> -> f32
// CHECK:             %[[Y0:\d+]] = arith.minimumf %{{\d+}}, %{{\d+}} : f32
// CHECK-NEXT:        %[[Y1:\d+]] = arith.maximumf %{{\d+}}, %{{\d+}} : f32
// CHECK-NEXT:        %[[X0:\d+]] = arith.minimumf %{{\d+}}, %{{\d+}} : f32
// CHECK-NEXT:        %[[X1:\d+]] = arith.maximumf %{{\d+}}, %{{\d+}} : f32
// CHECK-NEXT:        %[[W:\d+]] = arith.subf %[[X1]], %[[X0]] : f32
// CHECK-NEXT:        %[[H:\d+]] = arith.subf %[[Y1]], %[[Y0]] : f32
// CHECK-NEXT:        %[[AREA:\d+]] = arith.mulf %[[W]], %[[H]] : f32
// CHECK:             loop.store %[[X0]], %[[PLANES]][%{{\d+}}, %[[Q]]] : f32, memref<5x6xf32>
// CHECK:             loop.store %[[Y0]], %[[PLANES]][%{{\d+}}, %[[Q]]] : f32, memref<5x6xf32>
// CHECK:             loop.store %[[X1]], %[[PLANES]][%{{\d+}}, %[[Q]]] : f32, memref<5x6xf32>
// CHECK:             loop.store %[[Y1]], %[[PLANES]][%{{\d+}}, %[[Q]]] : f32, memref<5x6xf32>
// CHECK:             loop.store %[[AREA]], %[[PLANES]][%{{\d+}}, %[[Q]]] : f32, memref<5x6xf32>
// CHECK-NEXT:      }
// CHECK:           loop.for %[[C:\d+]] = 0 to 2 step 1 {
// Cleared: nothing kept, no rank looked at (a loop each: LLVM makes each a memset).
// CHECK-NEXT:        loop.for %[[T0:\d+]] = 0 to 6 step 1 {
// CHECK-NEXT:          %[[FALSE:\d+]] = arith.constant false
// CHECK-NEXT:          loop.store %[[FALSE]], %5[%[[B]], %[[C]], %[[T0]]] : i1, memref<1x2x6xi1>
// CHECK-NEXT:        }
// CHECK-NEXT:        loop.for %[[T1:\d+]] = 0 to 6 step 1 {
// CHECK-NEXT:          %[[NONE:\d+]] = arith.constant -1 : i64
// CHECK-NEXT:          loop.store %[[NONE]], %6[%[[B]], %[[C]], %[[T1]]] : i64, memref<1x2x6xi64>
// CHECK-NEXT:        }
// The candidates: each box stored at the count, which grows only for a score above the threshold.
// CHECK:             %[[M:\d+]] = loop.for %[[P:\d+]] = 0 to 6 step 1 iter_args(%[[COUNT:\d+]] = %{{\d+}}) -> (index) {
// CHECK-NEXT:          %[[PI:\d+]] = arith.index_cast %[[P]] : index to i64
// CHECK-NEXT:          loop.store %[[PI]], %[[HEAP]][%[[COUNT]]] : i64, memref<6xi64>
// CHECK-NEXT:          %[[SCORE:\d+]] = loop.load %1[%[[B]], %[[C]], %[[P]]] : memref<1x2x6xf32> -> f32
// CHECK-NEXT:          %[[ABOVE:\d+]] = arith.cmpf ogt, %[[SCORE]], %[[THRESHOLD]] : f32
// CHECK:             %[[DEPTH:\d+]] = loop.for %{{\d+}} = 0 to 3 step 1 iter_args
// Floyd's construction: each depth's parents sifted down as many levels as lie below them.
// CHECK:             loop.for %{{\d+}} = 0 to %[[DEPTH]] (at most 3) step 1 {
// CHECK:               loop.for %{{\d+}} = 0 to %{{\d+}} (at most 6) step 1 {
// CHECK:                 %{{\d+}}, %{{\d+}} = loop.for %{{\d+}} = 0 to %{{\d+}} (at most 3) step 1 iter_args
// The pass: while fewer than max are kept, the root compared with the kept boxes, whose
// planes are rows of their own (a loop that loop-vectorize makes 16 boxes a step).
// CHECK:             loop.for %[[T:\d+]] = 0 to %[[M]] (at most 6) step 1 iter_args(%[[KEPT_COUNT:\d+]] = %{{\d+}}) -> (index) {
// CHECK-NEXT:          %[[KC:\d+]] = arith.index_cast %[[KEPT_COUNT]] : index to i64
// CHECK-NEXT:          %[[ACTIVE:\d+]] = arith.cmpi slt, %[[KC]], %[[MAX]] : i64
// CHECK-NEXT:          %[[ROOT:\d+]] = loop.load %[[HEAP]][%{{\d+}}] : memref<6xi64> -> i64
// CHECK:               %[[TRIP:\d+]] = arith.select %[[ACTIVE]], %[[KEPT_COUNT]], %{{\d+}} : index
// CHECK-NEXT:          %[[SUPPRESSED:\d+]] = loop.for %[[J:\d+]] = 0 to %[[TRIP]] (at most 6) step 1 iter_args(%[[ANY:\d+]] = %{{\d+}}) -> (i1) {
// CHECK-NEXT:            %{{\d+}} = arith.constant 0 : index
// CHECK-NEXT:            %{{\d+}} = loop.load %[[KEPT]][%{{\d+}}, %[[J]]] : memref<5x6xf32> -> f32
// CHECK:                 %[[RATIO:\d+]] = arith.divf %[[INTER:\d+]], %[[UNION:\d+]] : f32
// CHECK-NEXT:            %{{\d+}} = arith.cmpf ogt, %[[RATIO]], %[[IOU]] : f32
// CHECK:                 arith.ori %[[ANY]], %{{\d+}} : i1
// CHECK-NEXT:            loop.yield
// CHECK-NEXT:          } {vectorize}
// CHECK:               %[[TAKE:\d+]] = arith.andi %[[ACTIVE]], %{{\d+}} : i1
// The candidate's planes appended to the kept ones (overwritten by the next if not taken).
// CHECK:               loop.store %{{\d+}}, %[[KEPT]][%{{\d+}}, %[[KEPT_COUNT]]] : f32, memref<5x6xf32>
// CHECK:               loop.store %{{\d+}}, %[[KEPT]][%{{\d+}}, %[[KEPT_COUNT]]] : f32, memref<5x6xf32>
// CHECK:               loop.store %{{\d+}}, %[[KEPT]][%{{\d+}}, %[[KEPT_COUNT]]] : f32, memref<5x6xf32>
// CHECK:               loop.store %{{\d+}}, %[[KEPT]][%{{\d+}}, %[[KEPT_COUNT]]] : f32, memref<5x6xf32>
// CHECK:               loop.store %{{\d+}}, %[[KEPT]][%{{\d+}}, %[[KEPT_COUNT]]] : f32, memref<5x6xf32>
// CHECK-NEXT:          loop.store %[[TAKE]], %5[%[[B]], %[[C]], %[[T]]] : i1, memref<1x2x6xi1>
// CHECK:               %[[RANKED:\d+]] = arith.select %[[ACTIVE]], %[[ROOT]], %{{\d+}} : i64
// CHECK-NEXT:          loop.store %[[RANKED]], %6[%[[B]], %[[C]], %[[T]]] : i64, memref<1x2x6xi64>
// The pop: the last candidate to the root, sifted down (no levels once inactive).
// CHECK:               loop.store %{{\d+}}, %[[HEAP]][%{{\d+}}] : i64, memref<6xi64>
// CHECK:               %[[SIFT:\d+]] = arith.andi %[[ACTIVE]], %{{\d+}} : i1
// CHECK-NEXT:          %[[LEVELS:\d+]] = arith.select %[[SIFT]], %[[DEPTH]], %{{\d+}} : index
// CHECK:               %{{\d+}}, %{{\d+}} = loop.for %{{\d+}} = 0 to %[[LEVELS]] (at most 3) step 1 iter_args
func.func @main(%boxes: tensor<1x6x4xf32>, %scores: tensor<1x2x6xf32>, %max: tensor<i64>, %iou: tensor<f32>, %t: tensor<f32>) -> (tensor<1x2x6xi1>, tensor<1x2x6xi64>) {
  %keep, %order = graph.greedy_nms %boxes, %scores, %max, %iou, %t {thresholded = 1 : i64} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>, tensor<i64>, tensor<f32>, tensor<f32>) -> (tensor<1x2x6xi1>, tensor<1x2x6xi64>)
  func.return %keep, %order : tensor<1x2x6xi1>, tensor<1x2x6xi64>
}
