// te-tile: split each named loop and nest all outer parts outside all inner parts (TVM's
// tile): #te.split per axis, then one #te.reorder. The matmul's loops i0, r0, i1 become
// i0.o, i1.o, r0, i0.i, i1.i (a reorder keeps the places of the loops it names, so r0 stays
// between the tile loops and the 4 x 16 tile of C).
// RUN: minitvm-opt %s -p 'te-tile{kernel=matmul compute=0 axes=i0,i1 factors=4,16}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-tile{kernel=matmul compute=0 axes=i0,i1 factors=4,16},convert-te-to-loop' | filecheck %s --check-prefix=LOOP
// RUN: not minitvm-opt %s -p 'te-tile{kernel=matmul compute=0 axes=i0,i1 factors=4}' 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @matmul(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}) in [8, 32] sum (%{{.*}}) in [16] {schedule = [#te.split<"i0", 4>, #te.split<"i1", 16>, #te.reorder<["i0.o", "i1.o", "i0.i", "i1.i"]>]} : tensor<8x32xf32> {

// LOOP-LABEL: func.func @matmul(
// LOOP-SAME:    %[[A:.*]]: memref<8x16xf32>, %[[B:.*]]: memref<16x32xf32>, %[[C:.*]]: memref<8x32xf32>)
// LOOP-NEXT:    loop.for %[[IO:.*]] = 0 to 2 step 1 {
// LOOP-NEXT:      loop.for %[[JO:.*]] = 0 to 2 step 1 {
// LOOP:                 loop.store %{{.*}}, %[[C]]
// LOOP:             loop.for %[[K:.*]] = 0 to 16 step 1 {
// LOOP-NEXT:          loop.for %[[II:.*]] = 0 to 4 step 1 {
// LOOP-NEXT:            loop.for %[[JI:.*]] = 0 to 16 step 1 {
// LOOP-NEXT:              %[[F:.*]] = arith.constant 4 : index
// LOOP-NEXT:              %[[IOF:.*]] = arith.muli %[[IO]], %[[F]] : index
// LOOP-NEXT:              %[[I:.*]] = arith.addi %[[IOF]], %[[II]] : index
// LOOP-NEXT:              %[[G:.*]] = arith.constant 16 : index
// LOOP-NEXT:              %[[JOG:.*]] = arith.muli %[[JO]], %[[G]] : index
// LOOP-NEXT:              %[[J:.*]] = arith.addi %[[JOG]], %[[JI]] : index
// LOOP-NEXT:              loop.load %[[A]][%[[I]], %[[K]]]
// LOOP-NEXT:              loop.load %[[B]][%[[K]], %[[J]]]

// ERR: error: @matmul compute 0: te-tile: 2 axes but 1 factors
func.func @matmul(%A: tensor<8x16xf32>, %B: tensor<16x32xf32>) -> tensor<8x32xf32> attributes {te.kernel} {
  %c = te.compute (%i, %j) in [8, 32] sum (%k) in [16] : tensor<8x32xf32> {
    %a = te.read %A[%i, %k] : tensor<8x16xf32>
    %b = te.read %B[%k, %j] : tensor<16x32xf32>
    %p = arith.mulf %a, %b : f32
    te.yield %p : f32
  }
  func.return %c : tensor<8x32xf32>
}
