// te-split: append #te.split<axis, factor> to the selected compute's schedule; lowered, the
// loop becomes axis.o around axis.i with axis = axis.o * factor + axis.i. A factor that does
// not divide the extent peels: the whole tiles first, then one tile of what is left (8 = 2 x 3
// + 2), neither testing its rows.
// RUN: minitvm-opt %s -p 'te-split{kernel=scale compute=0 axis=i0 factor=4},te-split{kernel=scale compute=0 axis="i0.i" factor=2}' | filecheck %s
// RUN: minitvm-opt %s -p 'te-split{kernel=scale compute=0 axis=i0 factor=3},convert-te-to-loop' | filecheck %s --check-prefix=LOOP
// RUN: not minitvm-opt %s -p 'te-split{kernel=scale compute=0 axis=i7 factor=2}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not minitvm-opt %s -p 'te-split{kernel=scale compute=1 axis=i0 factor=2}' 2>&1 | filecheck %s --check-prefix=ERR-COMPUTE
// RUN: not minitvm-opt %s -p 'te-split{kernel=main compute=0 axis=i0 factor=2}' 2>&1 | filecheck %s --check-prefix=ERR-KERNEL

// A second split names the first one's inner loop ("i0.i", quoted: options cannot hold an
// unquoted dot; i0_i, the loop variable's name in loop IR, works too).
// CHECK-LABEL: func.func @scale(
// CHECK-NEXT:    te.compute (%{{.*}}, %{{.*}}) in [8, 16] {schedule = [#te.split<"i0", 4>, #te.split<"i0.i", 2>]} : tensor<8x16xf32> {

// LOOP-LABEL: func.func @scale(
// LOOP-SAME:    %[[X:.*]]: memref<8x16xf32>, %[[Y:.*]]: memref<8x16xf32>)
// LOOP-NEXT:    loop.for %[[O:.*]] = 0 to 2 step 1 {
// LOOP-NEXT:      loop.for %[[I:.*]] = 0 to 3 step 1 {
// LOOP-NEXT:        loop.for %[[J:.*]] = 0 to 16 step 1 {
// LOOP-NEXT:          %[[F:.*]] = arith.constant 3 : index
// LOOP-NEXT:          %[[OF:.*]] = arith.muli %[[O]], %[[F]] : index
// LOOP-NEXT:          %[[ROW:.*]] = arith.addi %[[OF]], %[[I]] : index
// LOOP-NEXT:          loop.load %[[X]][%[[ROW]], %[[J]]]
// LOOP:               loop.store %{{.*}}, %[[Y]]
// LOOP-NEXT:        }
// LOOP-NEXT:      }
// LOOP-NEXT:    }
// LOOP-NEXT:    %[[WHOLE:.*]] = arith.constant 2 : index
// LOOP-NEXT:    loop.for %[[T:.*]] = 0 to 1 step 1 {
// LOOP-NEXT:      %[[O2:.*]] = arith.addi %[[WHOLE]], %[[T]] : index
// LOOP-NEXT:      loop.for %[[I2:.*]] = 0 to 2 step 1 {
// LOOP-NEXT:        loop.for %{{.*}} = 0 to 16 step 1 {
// LOOP-NEXT:          %[[F2:.*]] = arith.constant 3 : index
// LOOP-NEXT:          %[[OF2:.*]] = arith.muli %[[O2]], %[[F2]] : index
// LOOP-NEXT:          %[[ROW2:.*]] = arith.addi %[[OF2]], %[[I2]] : index
// LOOP-NEXT:          loop.load %[[X]][%[[ROW2]],
// LOOP:               loop.store %{{.*}}, %[[Y]]
// LOOP-NEXT:        }
// LOOP-NEXT:      }
// LOOP-NEXT:    }
// LOOP-NOT:     loop.if
// LOOP:         func.return

// ERR: error: @scale compute 0: schedule: no loop named 'i7' (loops: i0, i1)
// ERR-NEXT: note: raised by pass 'te-split'
// ERR-COMPUTE: error: @scale has no compute 1 (computes: 0)
// ERR-KERNEL: error: no te kernel @main (te kernels: @scale)
func.func @scale(%x: tensor<8x16xf32>) -> tensor<8x16xf32> attributes {te.kernel} {
  %y = te.compute (%i, %j) in [8, 16] : tensor<8x16xf32> {
    %a = te.read %x[%i, %j] : tensor<8x16xf32>
    %b = arith.addf %a, %a : f32
    te.yield %b : f32
  }
  func.return %y : tensor<8x16xf32>
}
