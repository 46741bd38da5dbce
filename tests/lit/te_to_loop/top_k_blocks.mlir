// convert-te-to-loop's heap selection (top_k.mlir) scans the elements after the first k a
// cache line at a time (SCAN_BLOCK_BYTES = 64: 16 lanes of f32/i32, 8 of f64/i64): per block
// a vector load of the row at size + lanes*b, the root's value (x at out[r, 0]) broadcast,
// one vector compare (the sort's order: vcmpf "ogt" descending, vcmpi "slt" ascending for
// integers) or-reduced from false; only where some lane beats the root does a static loop of
// `lanes` offer each element of the block as top_k.mlir's scan does (replace the root, sift
// down). The others - blocks*lanes elements the blocks leave (at most lanes-1) are then
// scanned one at a time.
// top_k.mlir's 2x5 row (a rest shorter than a block) keeps the one-at-a-time scan.
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | filecheck %s
// RUN: minitvm-opt %s -p convert-graph-to-te,convert-te-to-loop | minitvm-opt | filecheck %s

// Descending f32: 100 - 4 = 96 elements after the heap, 6 blocks of 16 (the tail, empty in
// a run, keeps its bound of 15).
// CHECK-LABEL: func.func @main(%0: memref<3x100xf32>, %1: memref<3x4xi64>) {
// CHECK-NEXT:    %[[N:\d+]] = arith.constant 100 : index
// CHECK-NEXT:    %[[K:\d+]] = arith.constant 4 : index
// CHECK:         loop.for %[[R:\d+]] = 0 to 3 step 1 {
// The rest after the heap's first k (none where k is 0):
// CHECK:           %[[ANY:\d+]] = arith.cmpi sgt, %[[K]], %{{\d+}} : index
// CHECK-NEXT:      %[[REST:\d+]] = arith.subi %[[N]], %[[K]] : index
// CHECK-NEXT:      %[[OTHERS:\d+]] = arith.select %[[ANY]], %[[REST]], %{{\d+}} : index
// CHECK-NEXT:      %[[LANES:\d+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[BLOCKS:\d+]] = arith.divui %[[OTHERS]], %[[LANES]] : index
// CHECK-NEXT:      loop.for %[[B:\d+]] = 0 to %[[BLOCKS]] (at most 6) step 1 {
// CHECK-NEXT:        %[[L16:\d+]] = arith.constant 16 : index
// CHECK-NEXT:        %[[OFF:\d+]] = arith.muli %[[B]], %[[L16]] : index
// CHECK-NEXT:        %[[START:\d+]] = arith.addi %[[K]], %[[OFF]] : index
// CHECK-NEXT:        %[[VALUES:\d+]] = loop.vload %0[%[[R]], %[[START]]] : memref<3x100xf32> -> vector<16xf32>
// CHECK-NEXT:        %[[ROOT_SLOT:\d+]] = arith.constant 0 : index
// CHECK-NEXT:        %[[ROOT_AT:\d+]] = loop.load %1[%[[R]], %[[ROOT_SLOT]]] : memref<3x4xi64> -> i64
// CHECK-NEXT:        %[[ROOT_INDEX:\d+]] = arith.index_cast %[[ROOT_AT]] : i64 to index
// CHECK-NEXT:        %[[ROOT:\d+]] = loop.load %0[%[[R]], %[[ROOT_INDEX]]] : memref<3x100xf32> -> f32
// CHECK-NEXT:        %[[BAR:\d+]] = loop.broadcast %[[ROOT]] : f32 -> vector<16xf32>
// CHECK-NEXT:        %[[BEATEN:\d+]] = loop.vcmpf "ogt", %[[VALUES]], %[[BAR]] : vector<16xf32> -> vector<16xi1>
// CHECK-NEXT:        %[[FALSE:\d+]] = arith.constant false
// CHECK-NEXT:        %[[SOME:\d+]] = loop.vreduce "ori" %[[FALSE]], %[[BEATEN]] : vector<16xi1> -> i1
// CHECK-NEXT:        loop.if %[[SOME]] {
// CHECK-NEXT:          loop.for %[[S:\d+]] = 0 to 16 step 1 {
// CHECK-NEXT:            %[[POS:\d+]] = arith.addi %[[S]], %[[START]] : index
// CHECK-NEXT:            %[[V:\d+]] = loop.load %0[%[[R]], %[[POS]]] : memref<3x100xf32> -> f32
// CHECK-NEXT:            %{{\d+}} = arith.constant 0 : index
// CHECK-NEXT:            %{{\d+}} = loop.load %1[%[[R]], %{{\d+}}] : memref<3x4xi64> -> i64
// CHECK-NEXT:            %{{\d+}} = arith.index_cast %{{\d+}} : i64 to index
// CHECK-NEXT:            %[[ROOT2:\d+]] = loop.load %0[%[[R]], %{{\d+}}] : memref<3x100xf32> -> f32
// CHECK-NEXT:            %[[BEATS:\d+]] = arith.cmpf ogt, %[[V]], %[[ROOT2]] : f32
// CHECK-NEXT:            loop.if %[[BEATS]] {
// CHECK-NEXT:              %[[NEW:\d+]] = arith.index_cast %[[POS]] : index to i64
// CHECK-NEXT:              %[[ZERO:\d+]] = arith.constant 0 : index
// CHECK-NEXT:              loop.store %[[NEW]], %1[%[[R]], %[[ZERO]]] : i64, memref<3x4xi64>
// The sift-down of the new root (top_k.mlir pins it).
// CHECK:                   loop.for %{{\d+}} = 0 to 3 step 1 iter_args(
// CHECK:                 }
// CHECK-NEXT:              loop.store %{{\d+}}, %1[%[[R]], %{{\d+}}] : i64, memref<3x4xi64>
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// The tail: what the blocks leave, one at a time from size + blocks*16.
// CHECK-NEXT:      %[[T16:\d+]] = arith.constant 16 : index
// CHECK-NEXT:      %[[DONE:\d+]] = arith.muli %[[BLOCKS]], %[[T16]] : index
// CHECK-NEXT:      %[[TAIL:\d+]] = arith.subi %[[OTHERS]], %[[DONE]] : index
// CHECK-NEXT:      %[[FROM:\d+]] = arith.addi %[[K]], %[[DONE]] : index
// CHECK-NEXT:      loop.for %[[U:\d+]] = 0 to %[[TAIL]] (at most 15) step 1 {
// CHECK-NEXT:        %[[TPOS:\d+]] = arith.addi %[[U]], %[[FROM]] : index
// CHECK-NEXT:        %[[TV:\d+]] = loop.load %0[%[[R]], %[[TPOS]]] : memref<3x100xf32> -> f32
// CHECK:             %[[TROOT:\d+]] = loop.load %0[%[[R]], %{{\d+}}] : memref<3x100xf32> -> f32
// CHECK-NEXT:        %[[TBEATS:\d+]] = arith.cmpf ogt, %[[TV]], %[[TROOT]] : f32
// CHECK-NEXT:        loop.if %[[TBEATS]] {
// CHECK-NEXT:          %[[TNEW:\d+]] = arith.index_cast %[[TPOS]] : index to i64
// No other vector op in the selection (the heapify and the final sort are scalar).
// CHECK-NOT:       loop.v
func.func @main(%x: tensor<3x100xf32>) -> tensor<3x4xi64> {
  %i = graph.argsort %x {descending = 1 : i64} : tensor<3x100xf32> -> tensor<3x4xi64>
  func.return %i : tensor<3x4xi64>
}

// Ascending i64 (compared signed): 40 - 3 = 37 elements after the heap, 4 blocks of 8 and a
// tail of at most 7.
// CHECK-LABEL: func.func @ascending(%0: memref<2x40xi64>, %1: memref<2x3xi64>) {
// CHECK-NEXT:    %[[N:\d+]] = arith.constant 40 : index
// CHECK-NEXT:    %[[K:\d+]] = arith.constant 3 : index
// CHECK:         loop.for %[[R:\d+]] = 0 to 2 step 1 {
// The rest after the heap's first k (none where k is 0):
// CHECK:           %[[ANY:\d+]] = arith.cmpi sgt, %[[K]], %{{\d+}} : index
// CHECK-NEXT:      %[[REST:\d+]] = arith.subi %[[N]], %[[K]] : index
// CHECK-NEXT:      %[[OTHERS:\d+]] = arith.select %[[ANY]], %[[REST]], %{{\d+}} : index
// CHECK-NEXT:      %[[LANES:\d+]] = arith.constant 8 : index
// CHECK-NEXT:      %[[BLOCKS:\d+]] = arith.divui %[[OTHERS]], %[[LANES]] : index
// CHECK-NEXT:      loop.for %[[B:\d+]] = 0 to %[[BLOCKS]] (at most 4) step 1 {
// CHECK-NEXT:        %[[L8:\d+]] = arith.constant 8 : index
// CHECK-NEXT:        %[[OFF:\d+]] = arith.muli %[[B]], %[[L8]] : index
// CHECK-NEXT:        %[[START:\d+]] = arith.addi %[[K]], %[[OFF]] : index
// CHECK-NEXT:        %[[VALUES:\d+]] = loop.vload %0[%[[R]], %[[START]]] : memref<2x40xi64> -> vector<8xi64>
// CHECK:             %[[ROOT:\d+]] = loop.load %0[%[[R]], %{{\d+}}] : memref<2x40xi64> -> i64
// CHECK-NEXT:        %[[BAR:\d+]] = loop.broadcast %[[ROOT]] : i64 -> vector<8xi64>
// CHECK-NEXT:        %[[BEATEN:\d+]] = loop.vcmpi "slt", %[[VALUES]], %[[BAR]] : vector<8xi64> -> vector<8xi1>
// CHECK-NEXT:        %[[FALSE:\d+]] = arith.constant false
// CHECK-NEXT:        %[[SOME:\d+]] = loop.vreduce "ori" %[[FALSE]], %[[BEATEN]] : vector<8xi1> -> i1
// CHECK-NEXT:        loop.if %[[SOME]] {
// CHECK-NEXT:          loop.for %[[S:\d+]] = 0 to 8 step 1 {
// CHECK-NEXT:            %[[POS:\d+]] = arith.addi %[[S]], %[[START]] : index
// CHECK-NEXT:            %[[V:\d+]] = loop.load %0[%[[R]], %[[POS]]] : memref<2x40xi64> -> i64
// CHECK:                 %[[ROOT2:\d+]] = loop.load %0[%[[R]], %{{\d+}}] : memref<2x40xi64> -> i64
// CHECK-NEXT:            %[[BEATS:\d+]] = arith.cmpi slt, %[[V]], %[[ROOT2]] : i64
// CHECK-NEXT:            loop.if %[[BEATS]] {
// CHECK:           %[[DONE:\d+]] = arith.muli %[[BLOCKS]], %{{\d+}} : index
// CHECK-NEXT:      %[[TAIL:\d+]] = arith.subi %[[OTHERS]], %[[DONE]] : index
// CHECK-NEXT:      %[[FROM:\d+]] = arith.addi %[[K]], %[[DONE]] : index
// CHECK-NEXT:      loop.for %[[U:\d+]] = 0 to %[[TAIL]] (at most 7) step 1 {
// CHECK-NEXT:        %[[TPOS:\d+]] = arith.addi %[[U]], %[[FROM]] : index
// CHECK-NEXT:        %[[TV:\d+]] = loop.load %0[%[[R]], %[[TPOS]]] : memref<2x40xi64> -> i64
// CHECK:             %[[TROOT:\d+]] = loop.load %0[%[[R]], %{{\d+}}] : memref<2x40xi64> -> i64
// CHECK-NEXT:        %[[TBEATS:\d+]] = arith.cmpi slt, %[[TV]], %[[TROOT]] : i64
// CHECK-NEXT:        loop.if %[[TBEATS]] {
// CHECK-NOT:       loop.v
func.func @ascending(%x: tensor<2x40xi64>) -> tensor<2x3xi64> {
  %i = graph.argsort %x {descending = 0 : i64} : tensor<2x40xi64> -> tensor<2x3xi64>
  func.return %i : tensor<2x3xi64>
}
