// te-unroll: append #te.unroll<axis>; convert-te-to-loop marks the loop {unroll} and
// loop-unroll replaces it by one copy of the body per iteration, the index a constant in each.
// RUN: minitvm-opt %s -p 'te-split{kernel=scale compute=0 axis=i1 factor=2},te-unroll{kernel=scale compute=0 axis=i1_i}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-split{kernel=scale compute=0 axis=i1 factor=2},convert-te-to-loop' | filecheck %s --check-prefix=BEFORE
// RUN: minitvm-opt %s -p 'te-split{kernel=scale compute=0 axis=i1 factor=2},te-unroll{kernel=scale compute=0 axis=i1_i},convert-te-to-loop,loop-unroll' | filecheck %s --check-prefix=AFTER

// CHECK-LABEL: func.func @scale(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}) in [8, 16] {schedule = [#te.split<"i1", 2>, #te.unroll<"i1.i">]} : tensor<8x16xf32> {

// BEFORE-LABEL: func.func @scale(
// BEFORE-NEXT:    loop.for %{{.*}} = 0 to 8 step 1 {
// BEFORE-NEXT:      loop.for %{{.*}} = 0 to 8 step 1 {
// BEFORE-NEXT:        loop.for %{{.*}} = 0 to 2 step 1 {

// AFTER-LABEL: func.func @scale(
// AFTER-SAME:    %[[X:.*]]: memref<8x16xf32>, %[[Y:.*]]: memref<8x16xf32>)
// AFTER-NEXT:    loop.for %[[I:.*]] = 0 to 8 step 1 {
// AFTER-NEXT:      loop.for %[[O:.*]] = 0 to 8 step 1 {
// AFTER-NEXT:        %[[ZERO:.*]] = arith.constant 0 : index
// AFTER-NEXT:        %[[TWO:.*]] = arith.constant 2 : index
// AFTER-NEXT:        %[[BASE:.*]] = arith.muli %[[O]], %[[TWO]] : index
// AFTER-NEXT:        %[[J:.*]] = arith.addi %[[BASE]], %[[ZERO]] : index
// AFTER-NEXT:        %{{.*}} = loop.load %[[X]][%[[I]], %[[J]]] : memref<8x16xf32> -> f32
// AFTER:             loop.store %{{.*}}, %[[Y]]
// AFTER-NEXT:        %[[ONE:.*]] = arith.constant 1 : index
// AFTER-NEXT:        %[[TWO1:.*]] = arith.constant 2 : index
// AFTER-NEXT:        %[[BASE1:.*]] = arith.muli %[[O]], %[[TWO1]] : index
// AFTER-NEXT:        %[[J1:.*]] = arith.addi %[[BASE1]], %[[ONE]] : index
// AFTER-NEXT:        %{{.*}} = loop.load %[[X]][%[[I]], %[[J1]]] : memref<8x16xf32> -> f32
// AFTER:             loop.store %{{.*}}, %[[Y]]
// AFTER-NEXT:      }
// AFTER-NEXT:    }
func.func @scale(%x: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j) in [8, 16] : tensor<8x16xf32> {
    %a = te.read %x[%i, %j] : tensor<8x16xf32>
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  }
  func.return %y : tensor<8x16xf32>
}
